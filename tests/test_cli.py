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
    data = json.loads(capsys.readouterr().out)
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
