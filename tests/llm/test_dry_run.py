"""`gen --dry-run` prints the very messages `gen` sends (no model, no network, nothing written), and
a retried model call says so on stderr at normal verbosity."""
import json
import socket
from pathlib import Path

import pytest

from ascendcraft.cli import main
from ascendcraft.llm.client import load_litellm
import llm_replies as R

litellm = load_litellm()


def dry(*extra):
    return main(["gen", str(R.LEAKY_OP), "--dry-run", *extra])


def test_dry_run_prints_the_messages_gen_sends(scripted, capsys):
    # the prompt of a real run with the scripted model...
    scripted.script(R.GOOD)
    assert main(["gen", str(R.LEAKY_OP), "--model", "scripted/m", "--no-lower", "--out", "o", "--cache", "off"]) == 0
    sent = scripted.calls[0]["messages"]
    capsys.readouterr()
    # ...is exactly what the dry run shows, with no model configured and nothing asked
    assert dry("--no-lower", "--json") == 0
    doc = json.loads(capsys.readouterr().out)
    shown = doc["result"]
    assert doc["status"] == "dry-run" and shown["op"] == "leaky_relu" and shown["model"] is None
    assert [(m["role"], m["content"]) for m in shown["messages"]] == [(m["role"], m["content"]) for m in sent]
    assert len(scripted.calls) == 1


def test_dry_run_text_has_both_messages_and_writes_nothing(tmp_path, capsys):
    before = sorted(Path.cwd().rglob("*"))
    assert dry() == 0
    out, err = capsys.readouterr()
    assert out.startswith("===== message 1 of 2: system =====\nYou are an expert Ascend kernel engineer")
    assert "===== message 2 of 2: user =====" in out
    assert "lowered to AscendC" in out            # by default verified replies are lowered: the prompt says so
    assert "nothing was sent" in err and "no model configured" in err
    assert sorted(Path.cwd().rglob("*")) == before
    assert dry("-q") == 0
    assert capsys.readouterr().err == ""


def test_dry_run_names_the_configured_model_without_calling_it(capsys, monkeypatch):
    def no_connection(*a, **k):
        raise AssertionError("a dry run opened a connection")
    monkeypatch.setattr(socket.socket, "connect", no_connection)
    assert dry("--model", "openai/gpt-4o", "--api-base", "http://127.0.0.1:9/v1", "--json", "--seed", "3") == 0
    shown = json.loads(capsys.readouterr().out)["result"]
    assert shown["model"] == "openai/gpt-4o" and shown["seed"] == 3 and len(shown["messages"]) == 2


def test_dry_run_still_loads_the_op(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("import torch\n")
    assert main(["gen", str(bad), "--dry-run", "--json"]) == 2
    out, err = capsys.readouterr()
    assert "class Model" in err and json.loads(out)["status"] == "error"


def _unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_connection_retries_print_one_line_each(capsys):
    Path("ascendcraft.toml").write_text("[llm]\nbackoff = 0.01\nretries = 2\n")   # cwd is a fresh tmp dir
    base = f"http://127.0.0.1:{_unused_port()}/v1"                                 # nobody listens there
    code = main(["gen", str(R.LEAKY_OP), "--model", "openai/fake", "--api-base", base, "--out", "o",
                 "--cache", "off", "--no-lower"])
    assert code == 2
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if "retrying in" in ln]
    assert len(lines) == 2, err
    assert lines[0].startswith("... openai/fake: attempt 1 of 3 failed (") and "Connection error" in lines[0]
    assert lines[0].endswith("retrying in 0.01 s") and "litellm." not in lines[0]
    assert "attempt 2 of 3 failed" in lines[1] and lines[1].endswith("retrying in 0.02 s")
    assert "did not answer after 3 attempt(s)" in err


def test_retry_lines_are_quiet_with_q(scripted, capsys):
    Path("ascendcraft.toml").write_text("[llm]\nbackoff = 0.01\n")
    scripted.script(litellm.RateLimitError(message="slow down", llm_provider="scripted", model="m"), R.GOOD)
    assert main(["gen", str(R.LEAKY_OP), "--model", "scripted/m", "--no-lower", "--out", "o", "--cache", "off",
                 "-q"]) == 0
    assert "retrying" not in capsys.readouterr().err
    scripted.script(litellm.RateLimitError(message="slow down", llm_provider="scripted", model="m"), R.GOOD)
    assert main(["gen", str(R.LEAKY_OP), "--model", "scripted/m", "--no-lower", "--out", "o2", "--cache",
                 "off"]) == 0
    (line,) = [ln for ln in capsys.readouterr().err.splitlines() if "retrying" in ln]
    assert line.startswith("... scripted/m: attempt 1 of 4 failed (RateLimitError")


def test_first_prompt_is_what_generate_starts_with(scripted):
    from ascendcraft.llm.generate import first_prompt, generate
    scripted.script(R.GOOD)
    generate(R.LEAKY_OP, model="scripted/m", cache="off")
    task, prompt = first_prompt(R.LEAKY_OP, lowering=False)
    assert task.name == "leaky_relu" and prompt.messages == scripted.calls[0]["messages"]
