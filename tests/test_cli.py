"""The `ascendcraft check` command: exit codes, summaries, and the verification holes it closes."""
import json
import os
import subprocess
import sys

import pytest

from ascendcraft.cli import main

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "cli")
OP = os.path.join(DATA, "softmax_op.py")


def kernel(name):
    return os.path.join(DATA, name)


def test_correct_multi_pass_softmax_passes(capsys):
    assert main(["check", kernel("softmax.dsl"), "--op", OP]) == 0
    out = capsys.readouterr().out
    assert out.startswith("PASS")
    assert out.count("PASS") >= 4  # the headline and one line per trial


def test_all_zero_softmax_is_rejected_by_the_relative_l2_bound(capsys):
    assert main(["check", kernel("softmax_zeros.dsl"), "--op", OP]) == 1
    assert capsys.readouterr().out.startswith("FAIL")


def test_partly_unwritten_output_is_rejected(capsys):
    assert main(["check", kernel("softmax_partial.dsl"), "--op", OP, "--trials", "1"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAIL") and "unwritten" in out


def test_over_ub_kernel_is_a_user_error_with_line_and_bytes(capsys):
    assert main(["check", kernel("softmax_whole_row.dsl"), "--op", OP]) == 2
    err = capsys.readouterr().err
    assert "memory error" in err and "softmax_whole_row.dsl:4:9" in err
    assert "exceeds the 196,608-byte UB of 910B2" in err and "footprint of 280,000 bytes" in err
    assert "Traceback" not in err


def test_syntax_error_is_one_clear_message(capsys):
    assert main(["check", kernel("softmax_syntax.dsl"), "--op", OP]) == 2
    err = capsys.readouterr().err
    assert err.startswith("syntax error: '(' was never closed")
    assert "softmax_syntax.dsl:3:17" in err and "Traceback" not in err


def test_malformed_op_file_names_what_is_missing(capsys):
    assert main(["check", kernel("softmax.dsl"), "--op", os.path.join(DATA, "not_a_task.py")]) == 2
    err = capsys.readouterr().err
    assert "Model" in err and "Traceback" not in err


def test_missing_files_are_user_errors(capsys):
    assert main(["check", kernel("nope.dsl"), "--op", OP]) == 2
    assert "no such kernel file" in capsys.readouterr().err
    assert main(["check", kernel("softmax.dsl"), "--op", os.path.join(DATA, "nope.py")]) == 2


def test_json_output(capsys):
    assert main(["check", kernel("softmax.dsl"), "--op", OP, "--json", "--trials", "2", "--seed", "7"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["schema"], doc["command"], doc["status"], doc["exit_code"], doc["error"]) == (1, "check", "passed", 0, None)
    data = doc["result"]
    assert data["passed"] is True and data["chip"] == "910B2" and data["cores"] == 48
    assert data["real_shapes"]["dims"] == {"B": 6, "N": 70000}
    assert 0 < data["real_shapes"]["peak_bytes"]["ub"] <= data["real_shapes"]["capacity_bytes"]["ub"] == 196608


def test_debug_shows_the_traceback():
    with pytest.raises(Exception):
        main(["--debug", "check", kernel("softmax_syntax.dsl"), "--op", OP])


def test_console_entry_point_runs():
    r = subprocess.run([sys.executable, "-m", "ascendcraft", "check", kernel("softmax_syntax.dsl"), "--op", OP],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "was never closed" in r.stderr and "Traceback" not in r.stderr


def test_output_piped_into_a_reader_that_stops_is_not_an_error():
    # `true` exits without reading, long before the check prints: the write hits a closed pipe.
    cmd = f"{sys.executable} -m ascendcraft check {kernel('softmax.dsl')} --op {OP} --trials 1 | true"
    r = subprocess.run(["bash", "-c", cmd + "; echo rc=${PIPESTATUS[0]}"], capture_output=True, text=True,
                       timeout=120)
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert "rc=0" in r.stdout


# --------------------------------------------------------------------------- conventions

def test_debug_and_verbose_work_after_the_subcommand_too(tmp_path, capsys):
    from ascendcraft.cli import _parser
    for argv in (["--debug", "check", "k.dsl", "--op", "o.py"], ["check", "k.dsl", "--op", "o.py", "--debug"]):
        args = _parser().parse_args(argv)
        assert args.debug is True and args.verbose is False
    args = _parser().parse_args(["check", "k.dsl", "--op", "o.py", "-v", "-q"])
    assert args.verbose and args.quiet


def test_json_errors_are_one_object_on_stdout(tmp_path, capsys):
    import json
    from ascendcraft.cli import main
    (tmp_path / "k.dsl").write_text("kernel k(x: gm f32[N]) -> (y: gm f32[N]):\n    store(y, x +)\n")
    code = main(["check", str(tmp_path / "k.dsl"), "--op", str(tmp_path / "missing.py"), "--json"])
    out, err = capsys.readouterr()
    obj = json.loads(out)
    assert code == 2 and obj["status"] == "error" and obj["exit_code"] == 2 and obj["result"] is None
    assert obj["command"] == "check" and obj["error"]["kind"] == "syntax error"
    assert obj["error"]["location"]["line"] == 2 and "syntax error" in err


def test_a_failing_check_shows_the_worst_elements_in_text(tmp_path, capsys):
    from pathlib import Path
    from ascendcraft.cli import main
    leaky = Path(__file__).parent.parent / "examples" / "activation" / "leaky_relu"
    bad = tmp_path / "k.dsl"
    bad.write_text((leaky / "kernel.dsl").read_text().replace("t * negative_slope", "t * 0.5"))
    assert main(["check", str(bad), "--op", str(leaky / "op.py"), "--trials", "1"]) == 1
    out = capsys.readouterr().out
    assert "worst elements: [" in out and "expected" in out and " got " in out


def test_a_missing_compiler_is_a_user_error(monkeypatch, tmp_path, capsys):
    from pathlib import Path
    from ascendcraft.cli import main
    leaky = Path(__file__).parent.parent / "examples" / "activation" / "leaky_relu"
    monkeypatch.setenv("PATH", str(tmp_path))          # no g++ anywhere
    code = main(["lower", str(leaky / "kernel.dsl"), "--op", str(leaky / "op.py"), "--out", str(tmp_path / "o"),
                 "--trials", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "g++" in err and "apt-get install g++" in err


def test_lower_says_it_wrote_the_timeline(tmp_path, capsys):
    from pathlib import Path
    from ascendcraft.cli import main
    leaky = Path(__file__).parent.parent / "examples" / "activation" / "leaky_relu"
    out = tmp_path / "o"
    assert main(["lower", str(leaky / "kernel.dsl"), "--op", str(leaky / "op.py"), "--out", str(out),
                 "--trials", "1"]) == 0
    (line,) = [ln for ln in capsys.readouterr().out.splitlines() if "wrote" in ln]
    assert line.startswith(f"  wrote {out}/ (report.md, timeline.json")
    for name in ("timeline.json", "ascendc/", "passes/", "project/"):
        assert name in line and (out / name.rstrip("/")).exists()
    assert ("timeline.png" in line) == (out / "timeline.png").exists()


def test_the_wrote_line_lists_only_what_was_written():
    from types import SimpleNamespace
    from ascendcraft.cli import _wrote_line
    r = SimpleNamespace(project_note=None, timeline_files={}, timeline_note=None)
    assert _wrote_line(r, "o") == "  wrote o/ (report.md, ascendc/, passes/, project/ for CANN and MultiKernelBench)"
    r = SimpleNamespace(project_note="CANN project not generated: x", timeline_files={"json": "timeline.json"},
                        timeline_note="timeline.png was not drawn: the picture needs matplotlib")
    assert _wrote_line(r, "o") == ("  wrote o/ (report.md, timeline.json, ascendc/, passes/); CANN project not "
                                   "generated: x; timeline.png was not drawn: the picture needs matplotlib")


def test_the_command_exits_0_for_help_and_version_and_2_for_a_usage_error():
    run = lambda *a: subprocess.run([sys.executable, "-c", "import sys; from ascendcraft.cli import entry; "
                                     "sys.exit(entry())", *a], capture_output=True, text=True)  # noqa: E731
    assert run("--help").returncode == 0 and run("--version").returncode == 0
    usage = run("check")
    assert usage.returncode == 2 and "required" in usage.stderr


def test_debug_shows_the_traceback_through_the_worker(tmp_path):
    missing = tmp_path / "no_such.dsl"
    r = subprocess.run([sys.executable, "-c", "import sys; from ascendcraft.cli import entry; sys.exit(entry())",
                        "--debug", "check", str(missing), "--op", str(missing)], capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback (most recent call last)" in r.stderr and "no such kernel file" in r.stderr


# --------------------------------------------------------------------------- flag ranges

def _numeric_flags():
    """(command, flag, action) for every numeric flag of every command."""
    from ascendcraft.cli import _parser
    from ascendcraft.flags import Bounded
    sub = next(a for a in _parser()._actions if a.dest == "command")
    return [(name, action.option_strings[0], action) for name, p in sub.choices.items() for action in p._actions
            if action.type in (int, float) or isinstance(action.type, Bounded)]


def test_every_numeric_flag_of_every_command_has_a_range():
    from ascendcraft.flags import Bounded
    flags = _numeric_flags()
    assert {c for c, _, _ in flags} == {"check", "lower", "gen", "bench", "reward", "export", "sim-op"}
    assert [(c, f) for c, f, a in flags if not isinstance(a.type, Bounded)] == []


OUT_OF_RANGE = [
    (["check", "k.dsl", "--op", "o.py", "--seed", "-5"], "--seed", "from 0 to 2,147,483,647"),
    (["check", "k.dsl", "--op", "o.py", "--trials", "9" * 40], "--trials", "from 1 to 1,000"),
    (["lower", "k.dsl", "--op", "o.py", "--trials", "9" * 40], "--trials", "from 1 to 1,000"),
    (["lower", "k.dsl", "--op", "o.py", "--max-bytes", "0"], "--max-bytes", "from 1 to"),
    (["gen", "o.py", "--samples", "0"], "--samples", "from 1 to 100"),
    (["reward", "b.jsonl", "--timeout", "0"], "--timeout", "from 1 to 86,400"),
    (["reward", "b.jsonl", "--jobs", "0"], "--jobs/-j", "from 1 to 1,024"),
    (["gen", "o.py", "--temperature", "nan"], "--temperature", "from 0 to 2"),
    (["gen", "o.py", "--timeout", "0"], "--timeout", "from 1 to 86,400 seconds"),
    (["bench", "t.py", "--jobs", "0"], "--jobs/-j", "from 1 to 1,024"),
    (["bench", "t.py", "--timeout", "inf"], "--timeout", "from 1 to 604,800 seconds"),
    (["bench", "t.py", "--turns", "x"], "--turns", "'x' is not an integer from 1 to 50"),
]


@pytest.mark.parametrize("argv,flag,expected", OUT_OF_RANGE,
                         ids=[f"{a[0]} {a[-2]} {a[-1][:12]}" for a, _, _ in OUT_OF_RANGE])
def test_numeric_flags_out_of_range_are_usage_errors(capsys, argv, flag, expected):
    from ascendcraft.cli import _parser
    with pytest.raises(SystemExit) as done:
        _parser().parse_args(argv)
    err = capsys.readouterr().err
    assert done.value.code == 2 and f"argument {flag}: " in err and expected in err


def test_a_negative_seed_is_a_usage_error_of_the_command():
    r = subprocess.run([sys.executable, "-m", "ascendcraft", "check", kernel("softmax.dsl"), "--op", OP,
                        "--seed", "-5"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "argument --seed: -5 is out of range" in r.stderr and "internal error" not in r.stderr


def test_the_readme_lists_every_flag_range():
    from pathlib import Path
    rows = [ln for ln in (Path(__file__).parent.parent / "README.md").read_text().splitlines() if ln.startswith("| `-")]
    for command, flag, action in _numeric_flags():
        assert [r for r in rows if f"`{flag}`" in r and command in r and f"| {action.type.range.span()} " in r], \
            (command, flag)


# --------------------------------------------------------------------------- the build cache

@pytest.mark.parametrize("where", ["a file", "in /proc"])
def test_a_cache_dir_that_cannot_be_written_is_a_user_error(tmp_path, monkeypatch, capsys, where):
    from pathlib import Path
    leaky = Path(__file__).parent.parent / "examples" / "activation" / "leaky_relu"
    cache = tmp_path / "cache" if where == "a file" else Path("/proc/ascendcraft-test-cache")
    if where == "a file":
        cache.write_text("not a folder")
    monkeypatch.setenv("ASCENDCRAFT_CACHE_DIR", str(cache))
    out = tmp_path / "o"
    code = main(["lower", str(leaky / "kernel.dsl"), "--op", str(leaky / "op.py"), "--out", str(out),
                 "--trials", "1", "--backend", "sim"])
    err = capsys.readouterr().err
    assert code == 2 and f"ASCENDCRAFT_CACHE_DIR={cache}" in err and "internal error" not in err
    assert "folder you can write" in err and not out.exists()


def test_a_usage_error_under_json_is_a_json_document_too(capsys):
    """argparse's refusals (a flag out of range, a missing argument, an unknown flag) keep their
    text on stderr and, with --json, give the same document as every other outcome."""
    for argv, command, words in (
            (["check", kernel("softmax.dsl"), "--op", OP, "--seed", "-5", "--json"], "check", "--seed"),
            (["bench", "--json"], "bench", "required"),
            (["lower", kernel("softmax.dsl"), "--op", OP, "--json", "--no-such-flag"], "lower", "--no-such-flag")):
        assert main(argv) == 2
        out, err = capsys.readouterr()
        doc = json.loads(out)
        assert set(doc) == {"schema", "command", "status", "exit_code", "result", "error"}
        assert (doc["command"], doc["status"], doc["exit_code"], doc["result"]) == (command, "error", 2, None)
        assert doc["error"]["kind"] == "usage error" and words in doc["error"]["message"]
        assert "usage: ascendcraft" in err and words in err
    assert main(["check", kernel("softmax.dsl"), "--op", OP, "--seed", "-5"]) == 2
    assert capsys.readouterr().out == ""                   # without --json, stdout stays empty
