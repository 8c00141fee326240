"""Replies written in AscendC (MultiKernelBench's custom-operator and direct-launch forms): built and run on
the simulator with their own host tiling, verified like DSL kernels, each stage scored; the reply's Python is
never run."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from ascendcraft.cann.reply import ReplyFormError, extract_project
from ascendcraft.reward import RewardSettings, rewards
from ascendcraft.reward.shaping import DEFAULT_FAILED_AT

CANN = Path(__file__).resolve().parents[1] / "cann"
PROJECT, OP = CANN / "projects" / "leaky_relu", CANN / "leaky_op.py"


def reply(tmp_path: Path, kernel=lambda s: s, host=lambda s: s) -> str:
    marker = tmp_path / "ran"
    parts = {
        "project_json_src": '[{"op": "LeakyReluCustom", "language": "cpp"}]',
        "host_tiling_src": (PROJECT / "op_host" / "leaky_relu_custom_tiling.h").read_text(),
        "host_operator_src": host((PROJECT / "op_host" / "leaky_relu_custom.cpp").read_text()),
        "kernel_src": kernel((PROJECT / "op_kernel" / "leaky_relu_custom.cpp").read_text()),
        "python_bind_src": "// the binding is not used",
        "model_src": f"open({str(marker)!r}, 'w').write('the reply ran')\n",
    }
    return "Here it is.\n```python\n" + "\n".join(f"{k} = {v!r}" for k, v in parts.items()) + "\n```\n"


def test_each_stage_of_an_ascendc_reply(tmp_path):
    replies = {
        "correct": reply(tmp_path),
        "wrong": reply(tmp_path, kernel=lambda s: s.replace("LeakyRelu(b, a, slope, n)", "LeakyRelu(b, a, slope * 2, n)")),
        "kernel does not build": reply(tmp_path, kernel=lambda s: s.replace("GET_TILING_DATA", "GET_TILING_DATUM")),
        "unknown host API": reply(tmp_path, host=lambda s: s.replace("GetCoreNumAiv", "GetCoreNumFoo")),
        "not a project": "kernel_src = open('/etc/passwd').read()\n",
    }
    results = dict(zip(replies, rewards([(OP, r) for r in replies.values()], settings=RewardSettings(trials=2),
                                        workers=2)))
    ok = results["correct"]
    assert ok.correct and ok.stage == "correct" and ok.time_us > 0 and ok.speedup > 0 and ok.reward >= 0.5
    assert results["wrong"].stage == "correct" and not results["wrong"].correct
    assert "elements wrong" in results["wrong"].error
    assert results["kernel does not build"].stage == "compile" and "GET_TILING_DATUM" in results["kernel does not build"].error
    assert results["unknown host API"].stage == "compile"
    assert "unsupported host API platform_ascendc::PlatformAscendC::GetCoreNumFoo" in results["unknown host API"].error
    assert results["not a project"].stage == "extract" and "not a string literal" in results["not a project"].error
    for name, r in results.items():
        if not r.correct:
            assert r.reward == DEFAULT_FAILED_AT[r.stage], name
    assert not (tmp_path / "ran").exists()          # model_src was never executed


@pytest.mark.parametrize("text, words", [
    ("```python\nkernel_src = '''x'''\n```", "does not assign project_json_src"),
    ("```python\nkernel_src = f'{x}'\nproject_json_src = ''\n```", "kernel_src is not a string literal"),
    ("```python\nkernel_src = (\n```", "does not parse"),
])
def test_malformed_projects_name_what_is_wrong(text, words):
    with pytest.raises(ReplyFormError, match=words):
        extract_project(text)


def test_a_project_is_read_from_literals_and_named_after_its_operator(tmp_path):
    p = extract_project(reply(tmp_path))
    assert p.op == "LeakyReluCustom" and sorted(p.files) == ["op_host/leaky_relu_custom.cpp",
                                                            "op_host/leaky_relu_custom_tiling.h",
                                                            "op_kernel/leaky_relu_custom.cpp"]


def _direct_helpers():
    """tests/cann/direct_helpers.py: the direct-launch test operator as a reply."""
    spec = importlib.util.spec_from_file_location("direct_helpers", CANN / "direct_helpers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_stage_of_a_direct_launch_reply(tmp_path):
    h = _direct_helpers()
    marker = tmp_path / "ran"
    model = "kernel/binding.cpp", "ModelNew.py"
    files = h.edited("ModelNew.py", "import torch", f"open({str(marker)!r}, 'w').write('ran')\nimport torch")
    replies = {
        "correct": h.direct_reply(files),
        "wrong": h.direct_reply(h.edited("kernel/leaky_kernel.cpp", "static_cast<T>(slope), n)",
                                         "static_cast<T>(slope * 2), n)")),
        "does not build": h.direct_reply(h.edited(model[0], "at::empty_like(x);", "at::empty_like(x).to(at::kHalf);")),
        "host code fails": h.direct_reply(h.edited(model[0], "x.scalar_type() == at::kFloat ||", "false &&")),
        "forward computes": h.direct_reply(h.edited(model[1], "return ext.leaky(x.contiguous(), self.slope)",
                                                    "return torch.relu(x)")),
    }
    results = dict(zip(replies, rewards([(OP, r) for r in replies.values()], settings=RewardSettings(trials=2),
                                        workers=2)))
    ok = results["correct"]
    assert ok.correct and ok.stage == "correct" and ok.time_us > 0 and ok.reward >= 0.5, ok.error
    assert results["wrong"].stage == "correct" and "elements wrong" in results["wrong"].error
    assert results["does not build"].stage == "compile" and "at::Tensor::to" in results["does not build"].error
    assert results["host code fails"].stage == "correct" and "threw c10::Error" in results["host code fails"].error
    assert results["forward computes"].stage == "extract" and "torch.relu" in results["forward computes"].error
    for name, r in results.items():
        if not r.correct:
            assert r.reward == DEFAULT_FAILED_AT[r.stage] and r.status == "scored", name
    assert not marker.exists()          # ModelNew.py was never executed
