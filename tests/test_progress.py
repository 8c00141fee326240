"""Progress on stderr (ascendcraft/progress.py): a tqdm status line on a terminal, lines with -v
elsewhere, nothing with -q; the CLI ends it before a result reaches stdout."""
import io
import sys
from pathlib import Path

import ascendcraft.progress as progress_module
from ascendcraft.cli import main
from ascendcraft.progress import Progress

TASK = Path(__file__).resolve().parent / "data" / "tasks" / "leaky_relu.py"
KERNEL = """\
kernel leaky_relu(x: gm f32[B, N], negative_slope: f32 = 0.01) -> (y: gm f32[B, N]):
    for b in parallel(B):
        t = load(x[b, :])
        store(y[b, :], where(t >= 0.0, t, t * negative_slope))
"""


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_status_line_on_a_terminal_is_redrawn_and_cleared():
    screen = Terminal()
    p = Progress(stream=screen)
    assert p.enabled and p.animated and p.callback is p
    p("loading op")
    p("pass select")
    drawn = screen.getvalue()
    assert "... loading op" in drawn and "... pass select" in drawn and "\r" in drawn   # one line, redrawn
    assert "\n" not in drawn
    p.close()
    p.close()                                   # idempotent
    assert p._bar is None


def test_lines_when_asked_off_a_terminal_and_nothing_when_quiet():
    log = io.StringIO()
    p = Progress(verbose=True, stream=log)
    p("loading op")
    assert log.getvalue() == "... loading op\n" and not p.animated
    quiet = io.StringIO()
    q = Progress(verbose=True, quiet=True, stream=quiet)
    q("loading op")
    assert quiet.getvalue() == "" and q.callback is None
    piped = io.StringIO()
    assert Progress(stream=piped).callback is None           # not a terminal, not asked: silent


def test_a_counter_writes_a_line_per_item_off_a_terminal_and_a_bar_on_one():
    log = io.StringIO()
    c = Progress(verbose=True, stream=log).counter(2)
    c.advance("a/x: correct", passing=1)
    c.advance("a/y: failed at verify", passing=1)
    c.close()
    assert log.getvalue().splitlines() == ["[1/2] a/x: correct", "[2/2] a/y: failed at verify"]
    screen = Terminal()
    c = Progress(stream=screen).counter(2)
    c.advance("a/x: correct", passing=1)
    c.close()
    text = screen.getvalue()
    assert "a/x: correct" in text and "1/2" in text and "passing=1" in text


def test_the_cli_ends_the_status_line_before_the_result(monkeypatch, tmp_path):
    kernel = tmp_path / "k.dsl"
    kernel.write_text(KERNEL)
    made = []
    init = Progress.__init__

    def remember(self, **kw):
        init(self, **kw)
        made.append(self)
    monkeypatch.setattr(Progress, "__init__", remember)
    monkeypatch.setattr(progress_module, "_isatty", lambda stream: True)     # stderr is "a terminal"
    open_at_write = []

    class Stdout(io.StringIO):
        def write(self, text):
            open_at_write.append(made[0]._bar is not None)
            return super().write(text)
    stdout = Stdout()
    monkeypatch.setattr(sys, "stdout", stdout)
    shown = []
    call = Progress.__call__

    def draw(self, msg):
        shown.append(self._bar is not None or msg)
        call(self, msg)
    monkeypatch.setattr(Progress, "__call__", draw)
    assert main(["check", str(kernel), "--op", str(TASK), "--trials", "1"]) == 0
    assert len(shown) > 1 and shown[-1] is True and "PASS" in stdout.getvalue()   # a bar was up
    assert open_at_write and not any(open_at_write)     # the bar was gone whenever stdout was written



def test_a_library_caller_without_a_callback_gets_the_stages_on_the_logger(caplog):
    import logging

    from ascendcraft.checking import check_kernel
    with caplog.at_level(logging.INFO, logger="ascendcraft"):
        result = check_kernel(KERNEL, str(TASK), trials=2)
    assert result.report.passed
    stages = [r.getMessage() for r in caplog.records if r.name == "ascendcraft"]
    assert any(m.startswith("trial 1/") for m in stages), stages
    assert all(r.levelno == logging.INFO for r in caplog.records if r.name == "ascendcraft")


def test_the_logger_is_silent_until_configured(capsys):
    import logging
    assert any(isinstance(h, logging.NullHandler) for h in logging.getLogger("ascendcraft").handlers)
    progress_module.reporter(None)("a stage nobody asked to see")
    assert capsys.readouterr().err == ""
