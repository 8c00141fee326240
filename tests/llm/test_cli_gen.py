"""`ascendcraft gen` end to end: litellm's real HTTP path against a loopback fake OpenAI server,
exit codes, the files written, record/replay, and atomic output."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ascendcraft.cli import main
import llm_replies as R


class FakeOpenAI:
    """/v1/chat/completions on 127.0.0.1, answering from a script of (status, reply text) pairs."""

    def __init__(self):
        self.script: list[tuple[int, str]] = []
        self.requests: list[dict] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
                status, text = fake.script.pop(0) if fake.script else (500, "the script is empty")
                if status == 200:
                    out = {"id": f"chatcmpl-{len(fake.requests)}", "object": "chat.completion", "created": 1,
                           "model": body["model"], "choices": [{"index": 0, "finish_reason": "stop",
                                                                "message": {"role": "assistant", "content": text}}],
                           "usage": {"prompt_tokens": 1200, "completion_tokens": 300, "total_tokens": 1500}}
                else:
                    out = {"error": {"message": text, "type": "error", "code": status}}
                data = json.dumps(out).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_port}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02},
                                       daemon=True)
        self.thread.start()

    def replies(self, *items):
        self.script = [(200, x) if isinstance(x, str) else x for x in items]
        return self

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def server():
    s = FakeOpenAI()
    yield s
    s.close()


def gen(server, out, *extra):
    return main(["gen", str(R.LEAKY_OP), "--model", "openai/fake", "--api-base", server.base, "--out", str(out),
                 *extra])


def test_gen_end_to_end_through_http(server, tmp_path, capsys):
    server.replies(R.GOOD)
    out = tmp_path / "kernels_out" / "leaky_relu"
    assert gen(server, out) == 0
    stdout = capsys.readouterr().out
    assert stdout.startswith("VERIFIED  leaky_relu with openai/fake") and f"wrote {out}" in stdout
    # what went over the wire: an OpenAI chat request with our prompt and sampling settings
    (req,) = server.requests
    assert req["path"] == "/v1/chat/completions" and req["auth"] == "Bearer sk-no-key"
    body = req["body"]
    assert body["model"] == "fake" and body["temperature"] == 0.2 and body["seed"] == 0
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    # the output folder
    assert (out / "kernel.dsl").read_text() == R.KERNEL
    report = json.loads((out / "report.json").read_text())
    assert report["status"] == "verified" and report["model"]["model"] == "openai/fake"
    assert report["model"]["api_base"] == server.base
    assert report["usage"] == {"calls": 1, "cached_replies": 0, "retries": 0, "tokens_in": 1200, "tokens_out": 300,
                               "cost_usd": None, "cost_complete": False}
    assert report["verification"]["passed"]
    assert "| 1 | verified | 1 |" in (out / "report.md").read_text()
    lines = [json.loads(x) for x in (out / "llm" / "sample_01.jsonl").read_text().splitlines()]
    assert [m["role"] for m in lines] == ["system", "user", "assistant"]
    assert lines[2]["content"] == R.GOOD and lines[2]["tokens_in"] == 1200
    assert not list(out.parent.glob(".*partial*"))   # no staging directory left behind
    # the verified kernel was lowered, built and verified on the simulator
    assert (out / "ascendc" / "leaky_relu_custom.cpp").exists() and (out / "passes" / "15_deepen.dsl").exists()
    lowered = report["after_verify"]
    assert lowered["backend"] == "sim" and lowered["backend_verification"]["passed"]
    assert "compiled and verified on sim" in stdout
    # and its modeled run's timeline, as lower writes it
    assert json.loads((out / "timeline.json").read_text())["traceEvents"] and (out / "timeline.png").exists()
    assert "timeline.json" in stdout


def test_a_lowering_failure_goes_back_to_the_model(server, tmp_path, capsys):
    # reply 1 verifies but has a tile slice, which select cannot lower; select asks the model
    # (request 2, the assist prompt), whose answer does not parse; the failure goes back to the
    # generating conversation (request 3), whose fixed kernel lowers
    server.replies(R.UNLOWERABLE, "I am not sure how to do that.", R.GOOD)
    out = tmp_path / "o"
    assert gen(server, out) == 0
    assist = server.requests[1]["body"]["messages"][-1]["content"]
    assert "The rule-based selector has no rule for one statement" in assist and "window_max(" in assist
    repair = server.requests[2]["body"]["messages"][-1]["content"]
    assert "pass 'select'" in repair and "does not parse" in repair
    report = json.loads((out / "report.json").read_text())
    assert report["status"] == "verified" and report["samples"][0]["turns"] == 2


def test_gen_repairs_over_http_and_prints_json(server, tmp_path, capsys):
    server.replies(R.MISMATCH, R.GOOD)
    out = tmp_path / "out"
    assert gen(server, out, "--json", "--verbose") == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert (doc["command"], doc["status"], doc["exit_code"]) == ("gen", "passed", 0)
    report = doc["result"]
    for line in ("... sample 1/1, turn 1/4: asking openai/fake", "... sample 1/1, turn 1/4: failed at verify",
                 "... sample 1/1, turn 2/4: verified"):
        assert line in captured.err
    assert report["samples"][0]["stages"] == ["verify", "verified"] and report["attempts"] == 2
    repair = server.requests[1]["body"]["messages"]
    assert [m["role"] for m in repair] == ["system", "user", "assistant", "user"]
    assert "expected" in repair[-1]["content"] and " got " in repair[-1]["content"]
    lines = [json.loads(x) for x in (out / "llm" / "sample_01.jsonl").read_text().splitlines()]
    assert [m["role"] for m in lines] == ["system", "user", "assistant", "user", "assistant"]
    assert lines[3]["feedback_on"] == "verify"


def test_every_sample_failing_exits_1_with_a_report(server, tmp_path, capsys):
    server.replies(R.MISMATCH, R.NO_CODE, R.PARSE_ERROR, R.MISMATCH)
    out = tmp_path / "out"
    assert gen(server, out, "--samples", "2", "--turns", "2") == 1
    stdout = capsys.readouterr().out
    assert "FAILED  leaky_relu" in stdout and "none of 2 sample(s) verified" in stdout
    assert "sample 1: died at extract" in stdout and "sample 2: died at verify" in stdout
    assert not (out / "kernel.dsl").exists()
    report = json.loads((out / "report.json").read_text())
    assert report["status"] == "failed" and [s["died_at"] for s in report["samples"]] == ["extract", "verify"]
    assert (out / "llm" / "sample_02.last.dsl").read_text().startswith("kernel leaky_relu")
    assert "died at verify" in (out / "report.md").read_text()


def test_record_then_replay_without_the_server(server, tmp_path, capsys):
    server.replies(R.PARSE_ERROR, R.GOOD)
    assert gen(server, tmp_path / "first") == 0
    assert len(server.requests) == 2
    capsys.readouterr()
    cached = list((tmp_path / "cache" / "llm").glob("*.json"))   # ASCENDCRAFT_CACHE_DIR (conftest)
    assert len(cached) == 2
    server.close()    # nothing listens any more: a replay must not need it
    assert gen(server, tmp_path / "again", "--cache", "replay", "--json") == 0
    assert json.loads(capsys.readouterr().out)["result"]["status"] == "verified"
    report = json.loads((tmp_path / "again" / "report.json").read_text())
    assert report["usage"]["calls"] == 0 and report["usage"]["cached_replies"] == 2
    assert (tmp_path / "again" / "kernel.dsl").read_text() == (tmp_path / "first" / "kernel.dsl").read_text()
    # replay with another seed: a request never recorded is a user error, not a silent call
    assert gen(server, tmp_path / "third", "--cache", "replay", "--seed", "5") == 2
    assert "no cached LLM response" in capsys.readouterr().err
    assert not (tmp_path / "third").exists()


def test_auth_error_is_not_retried_and_names_the_variable(server, tmp_path, capsys):
    server.replies((401, "Incorrect API key provided"), R.GOOD)
    assert gen(server, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert len(server.requests) == 1
    assert "refused the credentials" in err and "OPENAI_API_KEY" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_server_errors_are_retried_with_the_configured_backoff(server, tmp_path):
    Path("ascendcraft.toml").write_text("[llm]\nbackoff = 0.01\nretries = 2\n")   # cwd is a fresh tmp dir
    server.replies((503, "overloaded"), (429, "rate limited"), R.GOOD)
    assert gen(server, tmp_path / "out") == 0
    assert len(server.requests) == 3
    assert json.loads((tmp_path / "out" / "report.json").read_text())["usage"]["retries"] == 2


def test_no_model_configured_is_exit_2_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["gen", str(R.LEAKY_OP), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: no LLM is configured") and "--model" in err and "ascendcraft lower" in err
    assert not out.exists()


def test_bench_without_kernels_or_a_model_names_bench_and_its_kernels_folder(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["bench", str(R.LEAKY_OP), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: no LLM is configured for `ascendcraft bench`") and "--kernels DIR" in err
    assert not out.exists()


def test_existing_output_needs_force_before_any_call(server, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "kernel.dsl").write_text("precious\n")
    server.replies(R.GOOD, R.GOOD)
    assert gen(server, out, "--force") == 2        # the user's own folder: never replaced
    assert "did not make" in capsys.readouterr().err and server.requests == []
    assert (out / "kernel.dsl").read_text() == "precious\n"
    from ascendcraft.outdir import MARKER
    (out / MARKER).write_text("{}")                 # a previous ascendcraft result
    assert gen(server, out) == 2
    assert "already exists" in capsys.readouterr().err and server.requests == []
    assert gen(server, out, "--force") == 0
    assert (out / "kernel.dsl").read_text() == R.KERNEL


def test_bad_op_file_is_exit_2(server, tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("import torch\n")
    assert main(["gen", str(bad), "--model", "openai/fake", "--api-base", server.base, "--out",
                 str(tmp_path / "o")]) == 2
    assert "class Model" in capsys.readouterr().err and server.requests == []


def test_ctrl_c_leaves_no_half_written_output(scripted, tmp_path, capsys):
    scripted.script(R.PARSE_ERROR, KeyboardInterrupt())
    out = tmp_path / "kernels_out" / "leaky_relu"
    assert main(["gen", str(R.LEAKY_OP), "--model", "scripted/m", "--out", str(out)]) == 130
    assert "interrupted" in capsys.readouterr().err
    assert not out.exists()
    assert not [p for p in tmp_path.rglob("*") if "leaky_relu" in p.name]   # no staging directory either


def test_a_failure_while_writing_leaves_nothing(scripted, tmp_path):
    from ascendcraft.llm.generate import generate
    scripted.script(R.GOOD)
    g = generate(R.LEAKY_OP, model="scripted/m")
    out = tmp_path / "out"

    def crash(staging):
        assert (staging / "kernel.dsl").exists() and (staging / "llm" / "sample_01.jsonl").exists()
        raise OSError("disk full")

    from ascendcraft.errors import UserError
    with pytest.raises(UserError, match="cannot write the output directory .*disk full"):
        g.save(out, write_extra=crash)
    assert list(tmp_path.glob("*out*")) == []
    assert g.save(out) == out and (out / "kernel.dsl").exists()
    # a later failure never replaces that good result: it goes beside it
    scripted.script(R.NO_CODE)
    failed = generate(R.LEAKY_OP, model="scripted/m", turns=1, cache="off")   # not the cached good reply
    assert failed.save(out) == tmp_path / "out.failed"
    assert (out / "kernel.dsl").exists() and (tmp_path / "out.failed" / "report.json").exists()


def test_lower_asks_the_model_for_a_statement_no_rule_lowers(server, tmp_path, capsys):
    """lower --model: select offers the statement to the model; the answer is checked like any
    pass output, and the report names the statement and what the model cost."""
    kernel = tmp_path / "k.dsl"
    kernel.write_text(R.UNLOWERABLE.split("```dsl\n")[1].split("```")[0])
    # the padded window of zeros as API ops: its 3 maxima (of zeros and -inf padding) are 0
    server.replies("```\n_t3 = Duplicate((3,), 0.0, f32)\n```")
    out = tmp_path / "o"
    code = main(["lower", str(kernel), "--op", str(R.LEAKY_OP), "--out", str(out), "--trials", "2",
                 "--model", "openai/fake", "--api-base", server.base])
    assert code == 0, capsys.readouterr().err
    assert "_t3 = window_max(_t2, kernel=(3,), padding=1)" in server.requests[0]["body"]["messages"][-1]["content"]
    md = (out / "report.md").read_text()
    assert "lowered by the model" in md and "model openai/fake for statements no rule lowers: 1 call(s)" in md
    assert json.loads((out / "report.json").read_text())["llm"]["calls"] == 1


def test_lower_without_a_model_says_so(tmp_path, capsys):
    kernel = tmp_path / "k.dsl"
    kernel.write_text(R.UNLOWERABLE.split("```dsl\n")[1].split("```")[0])
    code = main(["lower", str(kernel), "--op", str(R.LEAKY_OP), "--out", str(tmp_path / "o"), "--trials", "1"])
    err = capsys.readouterr().err
    assert code == 1 and "no AscendC selection rule" in err and "--model" in err
