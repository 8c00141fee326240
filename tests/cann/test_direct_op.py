"""Direct-launch operators (MultiKernelBench's ascendc_direct_launch form) on the simulator: the binding's host
code runs in the sandbox against the stand-in for PyTorch's C++ API, its launches run in order, the tensors it
returns are verified against the op; ModelNew.py is read, never run; each way a reply can be wrong is named."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ascendcraft.cann.direct_check import check_direct
from ascendcraft.cann.direct_reply import extract_direct
from ascendcraft.cann.reply import ReplyFormError
from ascendcraft.sim.build import SimBuildError, sandbox_support
from ascendcraft.sim.direct_op import DirectRunError, run_direct
from ascendcraft.sim.host_build import HostBuildError
from ascendcraft.sim.host_run import HostRunError

from direct_helpers import direct_reply, edited, operator_files

HERE = Path(__file__).resolve().parent
LEAKY, TWICE = HERE / "leaky_op.py", HERE / "leaky_twice_op.py"
BINDING, KERNEL, MODEL = "kernel/binding.cpp", "kernel/leaky_kernel.cpp", "ModelNew.py"


def leaky(x, slope):
    return np.where(x > 0, x, x * np.float32(slope))


def test_a_direct_launch_operator_is_verified_and_modeled():
    reply = extract_direct(direct_reply())
    assert (reply.function, reply.operator.module) == ("leaky", "leaky_ops")
    assert [a.kind for a in reply.args] == ["forward", "init"]
    result = check_direct(reply, LEAKY, trials=2)
    assert result.passed, result.summary()
    assert result.time_us > 0 and result.block_dim == 19     # 37 * 1001 elements in blocks of 2048
    assert result.sandboxed == sandbox_support()[0]


def test_the_binding_runs_its_launches_in_order_through_its_own_tensors():
    op = extract_direct(direct_reply()).operator
    x = np.random.default_rng(0).standard_normal((5, 300)).astype(np.float32)
    run = run_direct(op, "leaky_twice", [x, 0.5])
    assert [(k, b) for k, b, _ in run.launches] == [("leaky_kernel<float>", 1)] * 2
    np.testing.assert_allclose(run.outputs[0], leaky(leaky(x, 0.5), 0.5), rtol=1e-6)
    halves = run_direct(op, "leaky_halves", [x, 0.5])     # pointers into the middle of x and y
    assert len(halves.launches) == 2
    np.testing.assert_allclose(halves.outputs[0], leaky(x, 0.5), rtol=1e-6)
    aclrt = run_direct(op, "leaky_aclrt", [x, 0.5])        # ACLRT_LAUNCH_KERNEL(leaky_f32)(...)
    assert [k for k, _, _ in aclrt.launches] == ["leaky_f32"]
    np.testing.assert_allclose(aclrt.outputs[0], leaky(x, 0.5), rtol=1e-6)
    half = run_direct(op, "leaky", [x.astype(np.float16), 0.5])
    assert half.launches[0][0] == "leaky_kernel<half>" and half.output_dtypes == ["float16"]
    np.testing.assert_allclose(half.outputs[0], leaky(x.astype(np.float16), 0.5), rtol=1e-3)


def test_the_call_modelnew_makes_decides_which_function_runs():
    files = edited(MODEL, "ext.leaky(x.contiguous(), self.slope)", "ext.leaky_twice(x, self.slope)")
    reply = extract_direct(direct_reply(files))
    assert check_direct(reply, TWICE, trials=1, model_time=False).passed
    wrong = check_direct(reply, LEAKY, trials=1, model_time=False)
    assert not wrong.passed and "elements wrong" in wrong.first_failure()


def test_a_wrong_kernel_fails_verification():
    files = edited(KERNEL, "static_cast<T>(slope), n)", "static_cast<T>(slope * 2), n)")
    result = check_direct(extract_direct(direct_reply(files)), LEAKY, trials=1, model_time=False)
    assert not result.passed and "elements wrong" in result.first_failure()


def test_modelnew_is_read_never_run(tmp_path):
    marker = tmp_path / "ran"
    files = dict(operator_files())
    files[MODEL] = f"open({str(marker)!r}, 'w').write('ran')\n" + files[MODEL]
    assert check_direct(extract_direct(direct_reply(files)), LEAKY, trials=1, model_time=False).passed
    assert not marker.exists()


@pytest.mark.parametrize("old, new, error, words", [
    ("TORCH_CHECK(", "slope += x.data_ptr<float>()[0];\n    TORCH_CHECK(", HostRunError,
     "crashed in the binding function leaky: SIGSEGV"),
    ('TORCH_CHECK(x.scalar_type() == at::kFloat || x.scalar_type() == at::kHalf,', 'TORCH_CHECK(x.dim() == 3,',
     HostRunError, "the binding function leaky threw c10::Error: Expected x.dim() == 3 to be true"),
    ("at::Tensor y = at::empty_like(x);", "at::Tensor y = at::empty_like(x);\n    std::fopen(\"/etc/hostname\", \"r\");",
     HostRunError, "forbidden system call (openat)"),
    ("launch(x.contiguous(), y, slope);", "", DirectRunError, "launched no kernel"),
    ("auto xp = reinterpret_cast<GM_ADDR>(x.data_ptr());", "auto xp = reinterpret_cast<GM_ADDR>(x.data_ptr()) + 2;",
     DirectRunError, "argument 1 points 2 bytes into a tensor of float32, not at an element"),
    ("auto xp = reinterpret_cast<GM_ADDR>(x.data_ptr());", "auto xp = reinterpret_cast<GM_ADDR>(y.data_ptr()) + 4;",
     DirectRunError, "one tensor is passed as two arguments"),
    ("at::Tensor y = at::empty_like(x);", "at::Tensor y = at::empty_like(x).to(at::kHalf);", HostBuildError,
     "unsupported host API at::Tensor::to at kernel/binding.cpp:26"),
    ("namespace {", "static int leaked = [] { return std::fopen(\"/etc/hostname\", \"r\") != nullptr; }();\nnamespace {",
     HostRunError, "forbidden system call (openat)"),
    ("namespace {", "static volatile int touched;\n__attribute__((constructor(100))) static void early() { touched = 1; }"
                    "\nnamespace {", SimBuildError,
     "runs code before the simulator's sandbox is installed: early()"),
    ("at::Tensor y = at::empty_like(x);", "asm volatile(\"pause\");\n    at::Tensor y = at::empty_like(x);",
     HostBuildError, "contains inline assembly (kernel/binding.cpp:26)"),
], ids=["host reads device memory", "TORCH_CHECK", "host opens a file", "no launch", "pointer between elements",
        "one tensor twice",
        "a device operation of torch", "static initializer opens a file", "constructor before the sandbox",
        "inline assembly"])
def test_each_failure_of_the_binding_is_named(old, new, error, words):
    reply = extract_direct(direct_reply(edited(BINDING, old, new)))
    x = np.ones((4, 64), np.float32)
    if error is HostRunError and "openat" in words and not sandbox_support()[0]:
        pytest.skip("libseccomp is not available: host code runs without the sandbox")
    with pytest.raises(error) as info:
        run_direct(reply.operator, reply.function, [x, 0.1])
    assert words in str(info.value)


@pytest.mark.parametrize("edit, words", [
    (lambda f: edited(MODEL, "return ext.leaky(x.contiguous(), self.slope)",
                      "return ext.leaky(x, self.slope) * 2", f), "forward does more than return one call"),
    (lambda f: edited(MODEL, "return ext.leaky(x.contiguous(), self.slope)", "return torch.relu(x)", f),
     "returns torch.relu(...), not a function of the extension module leaky_ops"),
    (lambda f: edited(MODEL, "ext.leaky(x.contiguous(), self.slope)", "ext.leaky(x, slope=self.slope)", f),
     "passes keyword arguments"),
    (lambda f: edited(MODEL, "self.slope = negative_slope", "self.slope = compute(negative_slope)", f),
     "passes self.slope, which __init__ does not set"),
    (lambda f: edited(BINDING, "PYBIND11_MODULE(leaky_ops, m)", "void no_module(int m)", f),
     "no source defines the extension module"),
    (lambda f: {k: v for k, v in f.items() if k != MODEL}, "entry.model names ModelNew.py, which is not among"),
    (lambda f: {**f, "../escape.h": "x"}, "is not a new relative path inside the operator"),
], ids=["extra work in forward", "torch in forward", "keywords", "computed attribute", "no module", "no model",
        "path outside"])
def test_a_reply_not_in_the_form_is_named(edit, words):
    with pytest.raises(ReplyFormError, match=None) as info:
        extract_direct(direct_reply(edit(operator_files())))
    assert words in str(info.value)


def test_unparseable_json_says_where():
    text = direct_reply().replace('"sources"', '"sources" oops', 1)
    with pytest.raises(ReplyFormError, match=r"does not parse: line \d+ column \d+"):
        extract_direct(text)


def test_sim_op_checks_a_direct_launch_file(tmp_path):
    reply = tmp_path / "reply.json"
    reply.write_text(direct_reply(fenced=False))
    cmd = [sys.executable, "-m", "ascendcraft", "sim-op", str(reply), "--op", str(LEAKY), "--trials", "1", "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)["result"]
    assert doc["passed"] and doc["operator"] == "leaky_ops.leaky" and doc["time_us"] > 0
    proc = subprocess.run(cmd[:5] + ["--case", "x.json"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2 and "pass --op" in proc.stderr


def test_a_forward_parameter_the_op_does_not_pass_takes_its_default():
    files = edited(MODEL, "def forward(self, x):\n        return ext.leaky(x.contiguous(), self.slope)",
                   "def forward(self, x, slope=0.2):\n        return ext.leaky(x, slope)")
    reply = extract_direct(direct_reply(files))
    assert reply.args[1].has_default and reply.args[1].value == 0.2
    assert check_direct(reply, LEAKY, trials=1, model_time=False).passed
    files = edited(MODEL, "def forward(self, x):\n        return ext.leaky(x.contiguous(), self.slope)",
                   "def forward(self, x, slope):\n        return ext.leaky(x, slope)")
    with pytest.raises(DirectRunError, match="its parameter 2, which has no default"):
        check_direct(extract_direct(direct_reply(files)), LEAKY, trials=1, model_time=False)
