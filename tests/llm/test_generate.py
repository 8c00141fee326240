"""The repair loop through the Python API, with a scripted model: every failure goes back as one message."""
import json
import re

import pytest

from ascendcraft.errors import AscendcraftError
from ascendcraft.llm.client import LLMError, load_litellm
from ascendcraft.llm.generate import generate
import llm_replies as R

litellm = load_litellm()


def gen(**kw):
    kw.setdefault("model", "scripted/coder")
    return generate(R.LEAKY_OP, **kw)


def feedback(scripted, call):
    """The last message of a call: what the model was told about its previous reply."""
    return scripted.calls[call]["messages"][-1]["content"]


def test_verified_on_the_first_reply(scripted):
    scripted.script(R.GOOD)
    g = gen()
    assert g.verified and g.dsl == R.KERNEL and g.check.passed and g.compiled is None
    assert len(scripted.calls) == 1
    assert [m["role"] for m in scripted.calls[0]["messages"]] == ["system", "user"]
    assert scripted.calls[0]["params"]["temperature"] == 0.2 and scripted.calls[0]["params"]["seed"] == 0
    r = g.report
    assert r["status"] == "verified" and r["attempts"] == 1 and r["chosen"] == {"sample": 1, "turn": 1, "score": None}
    assert r["samples"][0]["stages"] == ["verified"] and r["samples"][0]["died_at"] is None
    assert r["usage"]["tokens_in"] > 0 and r["usage"]["tokens_out"] > 0
    assert r["verification"]["passed"] and r["wall_s"] > 0
    json.dumps(r)   # the report is plain JSON


def test_parse_error_then_fixed(scripted):
    scripted.script(R.PARSE_ERROR, R.GOOD)
    g = gen()
    assert g.verified and len(scripted.calls) == 2
    second = scripted.calls[1]["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert second[2]["content"] == R.PARSE_ERROR          # the model sees its own reply, then the error
    msg = feedback(scripted, 1)
    assert msg.startswith("Your kernel does not parse")
    assert "kernel.dsl:1:84" in msg and "expected: ':'" in msg and "^" in msg   # location and caret
    assert g.report["samples"][0]["stages"] == ["parse", "verified"]


def test_check_error_then_fixed(scripted):
    scripted.script(R.CHECK_ERROR, R.GOOD)
    g = gen()
    assert g.verified
    msg = feedback(scripted, 1)
    assert "checker rejects it" in msg and "name 'slope_typo' is not defined" in msg and "kernel.dsl:9:" in msg
    assert g.report["samples"][0]["stages"] == ["check", "verified"]


def test_numeric_mismatch_then_fixed_reports_expected_vs_got(scripted):
    scripted.script(R.MISMATCH, R.GOOD)
    g = gen()
    assert g.verified
    msg = feedback(scripted, 1)
    assert "differs from the PyTorch reference" in msg and "output 0 f32[8, 257]" in msg
    pairs = re.findall(r"expected (-?[\d.e-]+) got (-?[\d.e-]+)", msg)
    assert len(pairs) == 5
    # the wrong kernel used slope 0.3 instead of 0.2: every worst element is off by exactly that factor
    assert all(float(got) == pytest.approx(1.5 * float(exp), rel=1e-5) for exp, got in pairs)
    assert g.report["samples"][0]["stages"] == ["verify", "verified"]


def test_reply_without_code_block(scripted):
    scripted.script(R.NO_CODE, R.GOOD)
    g = gen()
    assert g.verified
    assert feedback(scripted, 1).startswith("Your reply has no ```dsl code block holding a kernel.")
    assert g.report["samples"][0]["stages"] == ["extract", "verified"]


def test_every_sample_failing_gives_a_clear_report(scripted):
    scripted.script(R.MISMATCH, R.MISMATCH, R.PARSE_ERROR, R.NO_CODE)
    g = gen(samples=2, turns=2)
    assert not g.verified and g.dsl is None and g.check is None
    assert len(scripted.calls) == 4
    r = g.report
    assert r["status"] == "failed" and r["samples_run"] == 2 and r["attempts"] == 4 and r["chosen"] is None
    assert [s["died_at"] for s in r["samples"]] == ["verify", "extract"]
    assert [s["stages"] for s in r["samples"]] == [["verify", "verify"], ["parse", "extract"]]
    text = g.summary()
    assert "FAILED" in text and "sample 1: died at verify" in text and "sample 2: died at extract" in text


def test_samples_differ_in_seed_and_use_a_higher_temperature(scripted):
    scripted.script(R.MISMATCH, R.GOOD)
    g = gen(samples=3, turns=1)
    assert g.verified and g.report["chosen"]["sample"] == 2 and g.report["samples_run"] == 2   # stops when verified
    assert [c["params"]["seed"] for c in scripted.calls] == [0, 1]
    assert all(c["params"]["temperature"] == 0.8 for c in scripted.calls)
    # each sample starts from the same prompt, not from the previous sample's conversation
    assert scripted.calls[0]["messages"] == scripted.calls[1]["messages"]


def test_best_keeps_the_verified_sample_with_the_lowest_score(scripted):
    scripted.script(R.GOOD, R.PARSE_ERROR, R.GOOD, R.GOOD)
    scores = iter([3.0, 1.0, 2.0])
    g = gen(samples=3, turns=2, best=True, score=lambda check, after: next(scores))
    assert g.report["samples_run"] == 3 and g.report["samples_verified"] == 3
    assert g.report["chosen"] == {"sample": 2, "turn": 2, "score": 1.0}


def test_after_verify_failures_go_back_to_the_model_with_their_stage(scripted):
    class BackendFailure(AscendcraftError):
        stage = "backend"

    seen = []

    def after_verify(check):
        seen.append(check.passed)
        if len(seen) == 1:
            raise BackendFailure("DataCopy length 1028 is not a multiple of 32 bytes", hint="pad the copy")
        return "lowered"

    scripted.script(R.GOOD, R.GOOD)
    g = gen(after_verify=after_verify)
    assert g.verified and g.after == "lowered" and seen == [True, True]
    msg = feedback(scripted, 1)
    assert "when the AscendC kernel was built and run it failed" in msg and "not a multiple of 32 bytes" in msg
    assert "pad the copy" in msg and "bug of ascendcraft" not in msg
    assert g.report["samples"][0]["stages"] == ["backend", "verified"]
    assert "lowered to AscendC" in scripted.calls[0]["messages"][0]["content"]


def test_a_failure_ascendcraft_recognises_as_its_own_tells_the_model_so(scripted):
    class PassBroke(AscendcraftError):
        stage = "lower"
        ours = True

    def after_verify(check):
        if len(scripted.calls) == 1:
            raise PassBroke("pass 'select': its output program is invalid", hint="rewrite line 7 another way")
        return "lowered"

    scripted.script(R.GOOD, R.GOOD)
    g = gen(after_verify=after_verify)
    msg = feedback(scripted, 1)
    assert "while it was lowered to AscendC it met a bug of ascendcraft's (not of your kernel)" in msg
    assert "rewrite line 7 another way" in msg and g.verified
    assert g.report["samples"][0]["history"][0]["ours"] is True


def test_an_internal_error_stops_the_sample_without_blaming_the_model(scripted):
    def broken(check):
        raise ValueError("bug in a pass")

    scripted.script(R.GOOD)
    g = gen(after_verify=broken)
    assert not g.verified and len(scripted.calls) == 1
    s = g.report["samples"][0]
    assert s["internal_error"] == "ValueError: bug in a pass" and s["died_at"] == "lower"
    scripted.script(R.GOOD)
    with pytest.raises(ValueError):
        gen(after_verify=broken, debug=True)


def test_provider_failure_keeps_what_is_already_verified(scripted, fake_sleep):
    from ascendcraft.llm.client import LLMClient
    from ascendcraft.llm.config import ModelConfig
    auth = litellm.AuthenticationError(message="key revoked", llm_provider="scripted", model="m")
    scripted.script(R.GOOD, auth)
    g = gen(samples=2, best=True, client=LLMClient(ModelConfig("scripted/m"), sleep=fake_sleep))
    assert g.verified and g.report["samples_run"] == 1 and "key revoked" in g.report["stopped_early"]
    scripted.script(auth)
    with pytest.raises(LLMError, match="key revoked"):
        gen()


def test_bad_arguments_and_bad_ops_are_user_errors_before_any_call(scripted, tmp_path):
    from ascendcraft.errors import UserError
    with pytest.raises(UserError, match="turns must be a positive integer"):
        gen(turns=0)
    with pytest.raises(UserError, match="temperature"):
        gen(temperature=3.0)
    bad = tmp_path / "bad.py"
    bad.write_text("x = 1\n")
    with pytest.raises(UserError, match="Model"):
        generate(bad, model="scripted/coder")
    assert scripted.calls == []


def test_the_public_generate_lowers_and_returns_a_compiled_kernel(scripted):
    import numpy as np
    import torch

    import ascendcraft
    scripted.script(R.GOOD)
    g = ascendcraft.generate(R.LEAKY_OP, model="scripted/coder", trials=1)
    assert g.verified and g.after.verification.passed and g.after.backend == "sim"
    x = torch.randn(8, 257)
    assert np.allclose(g.compiled(x).numpy(), torch.nn.functional.leaky_relu(x, 0.2).numpy(), atol=1e-6)
    assert "__aicore__" in g.compiled.source


def test_an_op_whose_reference_is_the_same_on_every_draw_ends_the_sample_at_once(scripted, tmp_path):
    # relu(x) - relu(x) is 0 whatever the inputs (as MultiKernelBench's gemm_max_subtract_gelu is):
    # no kernel can be verified, so one reply ends the sample, not four identical repair turns
    op = tmp_path / "zero.py"
    op.write_text(R.LEAKY_OP.read_text().replace(
        "return torch.nn.functional.leaky_relu(x, negative_slope=self.negative_slope)",
        "return torch.relu(x) - torch.relu(x)"))
    assert "torch.relu(x) - torch.relu(x)" in op.read_text()
    scripted.script(R.GOOD, R.GOOD, R.GOOD, R.GOOD)
    g = generate(op, model="scripted/coder", turns=4)
    assert not g.verified and len(scripted.calls) == 1
    s = g.report["samples"][0]
    assert s["stages"] == ["verify"] and "not verifiable" in s["unverifiable"]
