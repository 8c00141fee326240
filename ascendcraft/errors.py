"""Errors a user can cause, and the one place that renders them.

Every stage raises a subclass of :class:`AscendcraftError`. Errors that point at
DSL source carry a :class:`Span`; :func:`render` turns them into the
``file:line:col`` / source line / caret form, once, at the boundary (CLI or API).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """1-based start line/column and end line/column of a piece of DSL source."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class SourceFile:
    name: str
    text: str

    def line(self, number: int) -> str:
        lines = self.text.splitlines()
        return lines[number - 1] if 0 < number <= len(lines) else ""


class AscendcraftError(Exception):
    """Base class. ``exit_code`` is what the CLI exits with."""

    exit_code = 1
    kind = "error"
    #: a bug of ascendcraft (a pass whose program is wrong, emitted C++ that does not build or breaks
    #: a hardware rule), not of the kernel or the input: bench counts it apart from the model's failures
    ours = False

    def __init__(self, message: str, *, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return render(self)


class UserError(AscendcraftError):
    """Bad input from the user: a file, a flag, an op, a kernel. Exit code 2."""

    exit_code = 2


class DSLError(UserError):
    """An error located in DSL source (syntax, type, shape, memory, runtime)."""

    def __init__(self, message: str, span: Span | None = None, *, kind: str = "error",
                 hint: str | None = None, source: SourceFile | None = None,
                 expected: tuple[str, ...] = ()):
        super().__init__(message, hint=hint)
        self.span = span
        self.kind = kind
        self.source = source
        self.expected = expected

    def located(self, source: SourceFile | None) -> "DSLError":
        """Attach the source file if the error does not know it yet; returns self."""
        if self.source is None and source is not None:
            self.source = source
        return self


class InterpreterError(DSLError):
    """Raised while running a kernel (hardware rule, shape mismatch at run time, ...)."""


# --------------------------------------------------------------------------- Ctrl-C

_SIGINT = {"handled": False, "seen": False}


def handle_interrupts() -> None:
    """Install a SIGINT handler that records a real Ctrl-C (the CLI does this), so that a
    KeyboardInterrupt an op file raises itself can be told from the user's."""
    import signal

    def on_sigint(signum, frame):
        _SIGINT["seen"] = True
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)
    _SIGINT["handled"] = True


class Interrupted(KeyboardInterrupt):
    """A Ctrl-C that came while an output folder was being written, saying what the folder
    holds now (ascendcraft/outdir.py raises it; still a KeyboardInterrupt everywhere)."""

    def __init__(self, note: str):
        super().__init__(note)
        self.note = note


def render_interrupt(exc: BaseException) -> str:
    """The message of a Ctrl-C: ``interrupted``, and what the output folder holds when it is known."""
    note = getattr(exc, "note", None)
    return "interrupted" + (f": {note}" if note else "")


def interrupted() -> bool:
    """Whether a KeyboardInterrupt now is the user's Ctrl-C: yes when one was received, and
    whenever no handler tells (library use without :func:`handle_interrupts`)."""
    return _SIGINT["seen"] or not _SIGINT["handled"]


def render(err: AscendcraftError) -> str:
    """The single renderer: ``kind: message``, location, source line, caret, hints. The kind is said
    once: a message that starts with it, or quotes another error of the same kind after a colon
    (a pass's error around the interpreter's), does not repeat it."""
    prefix = f"{err.kind}: "
    message = err.message.removeprefix(prefix).replace(f": {prefix}", ": ")
    out = [prefix + message]
    span = getattr(err, "span", None)
    source = getattr(err, "source", None)
    if span is not None:
        name = source.name if source is not None else "<kernel>"
        out.append(f"  --> {name}:{span.line}:{span.column}")
        if source is not None:
            text = source.line(span.line)
            if text:
                width = len(str(span.line))
                pad = " " * width
                if span.end_line == span.line and span.end_column > span.column:
                    carets = "^" * (span.end_column - span.column)
                else:
                    carets = "^"
                out += [f"{pad} |", f"{span.line} | {text}", f"{pad} | {' ' * (span.column - 1)}{carets}"]
    expected = getattr(err, "expected", ())
    if expected:
        out.append("  = expected: " + ", ".join(expected))
    if err.hint:
        out.append(f"  = hint: {err.hint}")
    return "\n".join(out)
