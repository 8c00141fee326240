"""`bench --model`: pass@k from known per-sample outcomes, and a provider failure on one task
does not stop the others (a scripted litellm provider that answers by request seed and task)."""
import json

import pytest

from ascendcraft.bench import run_bench
from ascendcraft.bench.job import BenchOptions
from ascendcraft.llm.client import load_litellm
import llm_replies as R

litellm = load_litellm()


@pytest.fixture
def by_seed(monkeypatch):
    """Replies chosen by the request's seed; a task whose op file says PROVIDER-FAILS gets an
    authentication error (not retried)."""
    replies = {}

    class Handler(litellm.CustomLLM):
        def completion(self, model, messages, *args, **kwargs):
            text = "\n".join(str(m.get("content")) for m in messages)
            if "PROVIDER-FAILS" in text:
                raise litellm.AuthenticationError(message="invalid key", llm_provider="scripted", model=model)
            seed = (kwargs.get("optional_params") or {}).get("seed")
            return litellm.completion(model="openai/scripted", messages=messages, mock_response=replies[seed])

    saved = {name: list(getattr(litellm, name)) for name in ("provider_list", "_custom_providers")}
    monkeypatch.setattr(litellm, "custom_provider_map", [{"provider": "scripted", "custom_handler": Handler()}])
    yield replies
    for name, items in saved.items():
        getattr(litellm, name)[:] = items


def test_pass_at_k_from_known_samples_and_a_provider_failure(by_seed, tmp_path):
    ref = tmp_path / "reference" / "activation"
    ref.mkdir(parents=True)
    op = R.LEAKY_OP.read_text()
    (ref / "leaky_relu.py").write_text(op)
    (ref / "leaky_refused.py").write_text("# PROVIDER-FAILS\n" + op)
    # sample i sends seed i-1: right, wrong, right
    by_seed.update({0: R.GOOD, 1: R.MISMATCH, 2: R.GOOD})
    b = run_bench([str(tmp_path / "reference")], out=tmp_path / "out", jobs=2, timeout=300,
                  options=BenchOptions(model="scripted/coder", backend="sim", trials=2, samples=3, turns=1))
    by = {r["task"]: r for r in b.records}
    good = by["activation/leaky_relu"]
    assert [s["ended_at"] for s in good["samples"]] == ["correct", "verify", "correct"]
    assert good["correct"] and good["speedup"] > 0 and good["usage"]["tokens_in"] > 0
    refused = by["activation/leaky_refused"]
    assert refused["status"] == "error" and "invalid key" in refused["error"]["message"]
    o = b.summary["overall"]
    # pass@1: (2/3 + 0) / 2; pass@3: (1 + 0) / 2
    assert o["pass@1"] == pytest.approx(1 / 3) and o["pass@3"] == pytest.approx(0.5)
    assert o["errors"] == 1 and o["correct_tasks"] == 1 and o["tokens_out"] > 0
    folder = tmp_path / "out" / "tasks" / "activation" / "leaky_relu"
    assert (folder / "kernel.dsl").is_file() and json.loads((folder / "report.json").read_text())["status"] == "verified"
