"""Progress on stderr, for people watching a command.

One object per command run (the CLI makes it): stage messages become a status line drawn by
tqdm on a terminal, plain ``... message`` lines when asked with ``--verbose`` elsewhere (CI, a
pipe), and nothing with ``--quiet`` or when stderr is captured. :meth:`Progress.close` ends it;
the CLI calls it before anything goes to stdout or an error goes to stderr, so a bar never
shares a line with a result.

A library caller who passes no ``progress=`` callback gets the same stage messages on the
``ascendcraft`` logger at INFO (:func:`reporter`), silent until it configures logging.
"""
from __future__ import annotations

import logging
import sys
import time
from typing import Callable, TextIO

LOG = logging.getLogger("ascendcraft")


def reporter(progress: Callable[[str], None] | None) -> Callable[[str], None]:
    """Where a library function reports its stages: the caller's ``progress``, else the logger."""
    return progress if progress is not None else LOG.info


class Progress:
    def __init__(self, *, verbose: bool = False, quiet: bool = False, stream: TextIO | None = None):
        self.stream = stream if stream is not None else sys.stderr
        tty = _isatty(self.stream)
        self.enabled = not quiet and (verbose or tty)
        self.animated = self.enabled and tty     # a redrawn status line only where it can be redrawn
        self._bar = None
        self._started = time.perf_counter()

    # -- stage messages -------------------------------------------------------------------------
    def __call__(self, message: str) -> None:
        if not self.enabled:
            return
        if not self.animated:
            print(f"... {message}", file=self.stream, flush=True)
            return
        if self._bar is None:
            self._bar = _tqdm()(total=None, file=self.stream, bar_format="{desc} [{elapsed}]", leave=False,
                                dynamic_ncols=True)
        self._bar.set_description_str(f"... {message}")

    @property
    def callback(self):
        """The ``progress=`` argument for the API functions: None when nothing is shown."""
        return self if self.enabled else None

    # -- counted work (bench) -------------------------------------------------------------------
    def counter(self, total: int, unit: str = "task") -> "Counter":
        """A bar of ``total`` items; :meth:`Counter.advance` after each, with a line per item when
        lines are all that can be shown."""
        self.close()
        return Counter(self, total, unit)

    def write(self, line: str) -> None:
        """A line that stays (above the bar on a terminal)."""
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.write(line, file=self.stream)
        else:
            print(line, file=self.stream, flush=True)

    def close(self) -> None:
        """End the status line or bar (idempotent); the terminal line is left clean."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def elapsed(self) -> float:
        return time.perf_counter() - self._started


class Counter:
    def __init__(self, progress: Progress, total: int, unit: str):
        self.progress, self.total, self.done = progress, total, 0
        if progress.animated:
            progress._bar = _tqdm()(total=total, unit=unit, file=progress.stream, dynamic_ncols=True, leave=True)

    def advance(self, line: str | None = None, **postfix) -> None:
        """One more item done; ``line`` describes it, ``postfix`` (e.g. ``passing=3``) goes on the bar."""
        self.done += 1
        bar = self.progress._bar
        if bar is not None:
            if line and self.progress.enabled:
                bar.write(line, file=self.progress.stream)
            if postfix:
                bar.set_postfix(postfix, refresh=False)
            bar.update(1)
        elif self.progress.enabled and line:
            print(f"[{self.done}/{self.total}] {line}", file=self.progress.stream, flush=True)

    def close(self) -> None:
        self.progress.close()


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _tqdm():
    from tqdm import tqdm     # only when a bar is drawn: not on the CLI's start-up path
    return tqdm
