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
        where = f"{self.file or 'kernel'}:{self.line}: " if self.line else ""
        core = f" [block {self.block}]" if self.block is not None and self.block >= 0 else ""
        api = "" if self.message.startswith(self.api) else f"{self.api}: "
        return f"{where}{self.severity}: [{self.rule}] {api}{self.message}{core}"


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
    #: with ``run_kernel(trace=...)``: the per-block pipe timeline (:class:`ascendcraft.sim.timeline.Timeline`)
    timeline: Any = None

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]

    def report(self) -> str:
        lines = [str(d) for d in self.diagnostics]
        if self.crash:
            lines.append(f"crash: {self.crash}")
        if self.cost:
            lines.append(self.cost.summary())
        if not self.sandboxed:
            lines.append(f"not sandboxed: {self.sandbox_note or 'the kernel ran without the seccomp sandbox'}")
        return "\n".join(lines) if lines else "ok"
