"""The range of every numeric command-line flag, and the one argparse type that enforces it.

A value out of range is a usage error (exit 2) naming the flag and the range, before any work:
``--seed -5`` or ``--trials 10**40`` never reach the pipeline (where they were an internal
error, or a run that never ends). :func:`bound_numeric_flags` gives every ``int``/``float``
flag of every command its range from :data:`RANGES`; README.md, "Flag ranges", lists them.
"""
from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

#: Verification trials: each is a full run of the kernel and the op (1000 take hours already).
MAX_TRIALS = 1000
#: Seeds: trial t uses seed + t and sample i sends seed + i - 1 to the model (int32 is what
#: model servers and seeded generators take everywhere).
MAX_SEED = 2**31 - 1


@dataclass(frozen=True)
class Range:
    """An inclusive range of ``kind`` (int or float) values, and what the flag counts."""

    kind: type
    low: float
    high: float
    unit: str = ""

    def span(self) -> str:
        """``1 to 1,000``: as README.md's table of flag ranges writes it."""
        fmt = (lambda v: f"{v:,}") if self.kind is int else (lambda v: f"{v:,g}")
        return f"{fmt(self.low)} to {fmt(self.high)}"

    def text(self) -> str:
        what = "an integer" if self.kind is int else "a number"
        return f"{what} from {self.span()}" + (f" {self.unit}" if self.unit else "")


#: Every numeric flag's range, by its destination name (the same flag means the same thing in
#: every command), with ``(command, dest)`` entries where a command's flag differs.
RANGES: dict = {
    "trials": Range(int, 1, MAX_TRIALS),
    "seed": Range(int, 0, MAX_SEED),
    "max_bytes": Range(int, 1, 1 << 40, "bytes"),
    "samples": Range(int, 1, 100),
    "turns": Range(int, 1, 50),
    "optimize": Range(int, 0, 50),
    "temperature": Range(float, 0.0, 2.0),
    "jobs": Range(int, 1, 1024),
    ("gen", "timeout"): Range(float, 1, 86_400, "seconds"),        # one model reply
    ("bench", "timeout"): Range(float, 1, 604_800, "seconds"),     # one task
    ("reward", "timeout"): Range(float, 1, 86_400, "seconds"),     # one reply
}


class Bounded:
    """The argparse ``type`` of a flag with a range: parses the text and checks the range, else
    an ``ArgumentTypeError`` that argparse reports as ``argument --flag: ...`` (exit 2)."""

    def __init__(self, rng: Range):
        self.range = rng
        self.__name__ = rng.kind.__name__      # argparse names the type in some messages

    def __call__(self, text: str):
        try:
            value = self.range.kind(text)
        except (TypeError, ValueError):
            raise argparse.ArgumentTypeError(f"{text!r} is not {self.range.text()}") from None
        if (isinstance(value, float) and not math.isfinite(value)) or not self.range.low <= value <= self.range.high:
            raise argparse.ArgumentTypeError(f"{text} is out of range: expected {self.range.text()}")
        return value


def range_of(command: str, dest: str) -> Range | None:
    return RANGES.get((command, dest)) or RANGES.get(dest)


def bound_numeric_flags(command: str, parser: argparse.ArgumentParser) -> list[str]:
    """Give every ``int``/``float`` flag of ``command``'s parser its range (the type becomes
    :class:`Bounded`, the help says the range). Returns the flags that have none (a test keeps
    this empty)."""
    missing = []
    for action in parser._actions:
        if action.type not in (int, float):
            continue
        rng = range_of(command, action.dest)
        if rng is None:
            missing.append(action.option_strings[0] if action.option_strings else action.dest)
            continue
        action.type = Bounded(rng)
        if action.help and action.help is not argparse.SUPPRESS:
            action.help += f" [{rng.text()}]"
    return missing


def bound_all(subparsers: argparse._SubParsersAction) -> dict[str, list[str]]:
    """:func:`bound_numeric_flags` for every command; the flags left without a range, by command."""
    return {name: missing for name, p in subparsers.choices.items()
            if (missing := bound_numeric_flags(name, p))}
