"""What a simulator run gives back: :class:`SimResult` and its :class:`Diagnostic` records."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .cost import CostReport


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # "error" | "warning"
    rule: str
    api: str
    message: str
    line: int | None
    file: str | None = None
    block: int | None = None

    def __str__(self) -> str:
        core = f" [block {self.block}]" if self.block is not None and self.block >= 0 else ""
        return self.text() + core

    def text(self) -> str:
        """The diagnostic without the block it happened in."""
        where = f"{self.file or 'kernel'}:{self.line}: " if self.line else ""
        api = "" if self.message.startswith(self.api) else f"{self.api}: "
        return f"{where}{self.severity}: [{self.rule}] {api}{self.message}"


def distinct(diagnostics) -> list[str]:
    """Each diagnostic once, with the blocks it happened in (one line for a rule broken by 48 blocks
    alike, not 48), in the order first seen."""
    blocks: dict[str, list[int]] = {}
    for d in diagnostics:
        blocks.setdefault(d.text(), [])
        if d.block is not None and d.block >= 0:
            blocks[d.text()].append(d.block)
    out = []
    for text, bs in blocks.items():
        if len(bs) == 1:
            text += f" [block {bs[0]}]"
        elif bs:
            text += f" [{len(bs)} blocks: {', '.join(map(str, sorted(bs)[:4]))}{', ...' if len(bs) > 4 else ''}]"
        out.append(text)
    return out


@dataclass
class SimResult:
    ok: bool
    outputs: list[Any]
    diagnostics: list[Diagnostic]
    cost: CostReport | None
    crash: str | None
    returncode: int
    log: str = ""
    tiling_layout: list[dict] = field(default_factory=list)
    #: whether the kernel ran inside the seccomp sandbox; when False, ``sandbox_note`` says why
    sandboxed: bool = False
    sandbox_note: str = ""
    #: the forbidden system call the kernel made (``"execve"``, ...), or None
    violation: str | None = None
    #: the namespaces of its own the kernel ran in (``"user ipc"``; ``"ipc (why not user)"``, ``"none (why)"``)
    namespaces: str = ""
    #: with ``run_kernel(trace=...)``: the per-block pipe timeline (:class:`ascendcraft.sim.timeline.Timeline`)
    timeline: Any = None

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]

    def failure(self) -> str:
        """Why the run failed, for a person or a model: each diagnostic once and the crash; not the
        modeled time of the failed run or the sandbox's state (facts of this machine, not the kernel).
        The errors come first, then the crash, then the warnings: the first line says why."""
        lines = distinct(self.errors)
        if self.crash:
            lines.append(f"crash: {self.crash}")
        lines += distinct(self.warnings)
        return "\n".join(lines) if lines else "the run failed without a diagnostic"

    def report(self) -> str:
        lines = [str(d) for d in self.diagnostics]
        if self.crash:
            lines.append(f"crash: {self.crash}")
        if self.cost:
            lines.append(self.cost.summary())
        if not self.sandboxed:
            lines.append(f"not sandboxed: {self.sandbox_note or 'the kernel ran without the seccomp sandbox'}")
        return "\n".join(lines) if lines else "ok"
