"""ascendcraft lower end to end on the simulator: files, report, atomic writes, the Python API."""
import json
from pathlib import Path

import numpy as np
import torch

import ascendcraft
from ascendcraft.cli import main
from ascendcraft.dsl.parser import parse

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"


def test_lower_writes_the_kernel_its_passes_and_a_report(tmp_path, capsys):
    out = tmp_path / "leaky"
    d = EX / "activation" / "leaky_relu"
    code = main(["lower", str(d / "kernel.dsl"), "--op", str(d / "op.py"), "--out", str(out), "--trials", "2"])
    assert code == 0, capsys.readouterr().err
    printed = capsys.readouterr().out
    assert "compiled and verified on sim" in printed
    # the output and both reports say once whether the kernel ran in the sandbox (docs/simulator.md)
    from ascendcraft.sim.build import sandbox_support
    said = "sandbox: the kernel ran in the simulator's seccomp sandbox" if sandbox_support()[0] else "NOT SANDBOXED"
    assert printed.count(said) == 1 and (out / "report.md").read_text().count(said) == 1
    assert json.loads((out / "report.json").read_text())["sandboxed"] is sandbox_support()[0]
    assert parse((out / "kernel.dsl").read_text()) == parse((d / "kernel.dsl").read_text())   # the source, printed
    assert sorted(p.name for p in (out / "passes").iterdir())[-1] == "15_deepen.dsl"
    src = (out / "ascendc" / "leaky_relu_custom.cpp").read_text()
    assert 'extern "C" __global__ __aicore__ void leaky_relu_custom' in src and "AscendC::Select(" in src
    project = out / "project"   # CANN project, torch_npu binding and MultiKernelBench exports
    for rel in ("op_kernel/leaky_relu_custom.cpp", "op_host/leaky_relu_custom.cpp", "CMakeLists.txt",
                "host/main.cpp", "mkb/direct_launch.json", "mkb/leaky_relu_custom.py"):
        assert (project / rel).is_file(), rel
    report = json.loads((out / "report.json").read_text())
    assert report["backend"] == "sim" and report["backend_verification"]["passed"]
    assert report["modeled"]["time_us"] > report["modeled"]["launch_us"] > 0
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]   # no staging left behind
    md = (out / "report.md").read_text()
    assert "the HBM floor: every input read once" in md and "cube" not in md.split("## Modeled")[1].split("|")[0]
    assert "| MTE2 |" in md and "GM -> UB/L1 copies" in md and "what would help most:" in md
    assert "## Files" in md and "`passes/NN_<pass>.dsl`" in md and "docs/simulator.md" in md
    assert "Second verification shapes" in md and "trial 1 (seed 1, signed)" in md


def test_lower_never_overwrites_a_result_without_force(tmp_path, capsys):
    out = tmp_path / "res"
    out.mkdir()
    (out / "keep.txt").write_text("previous result")
    d = EX / "activation" / "leaky_relu"
    code = main(["lower", str(d / "kernel.dsl"), "--op", str(d / "op.py"), "--out", str(out)])
    assert code == 2 and "--force" in capsys.readouterr().err
    assert (out / "keep.txt").read_text() == "previous result"


def test_a_failing_lowering_leaves_no_half_written_result(tmp_path, capsys):
    out = tmp_path / "cs"
    d = EX / "math" / "cumprod"
    bad = tmp_path / "window.dsl"   # a padded window of a computed tile: no selection rule
    bad.write_text((d / "kernel.dsl").read_text().replace("cumprod(t) * carry", "cumprod(t) * carry + 0.0 * sum(window_max(zeros((8,), f32), kernel=(3,), padding=1))"))
    code = main(["lower", str(bad), "--op", str(d / "op.py"), "--out", str(out), "--trials", "1"])
    err = capsys.readouterr().err
    assert code == 1 and "pass 'select'" in err and "passes" in err
    # the failure report holds both programs and nothing else
    assert sorted(p.name for p in (out / "passes").iterdir()) == ["failed_select.before.dsl"]
    assert json.loads((out / "report.json").read_text())["status"] == "failed"
    assert not (out / "ascendc").exists()


def test_compile_returns_a_callable_handle(tmp_path):
    d = EX / "activation" / "leaky_relu"
    k = ascendcraft.compile(d / "kernel.dsl", d / "op.py", trials=1)
    x = torch.randn(7, 300)
    y = k(x)
    assert torch.allclose(y, torch.nn.functional.leaky_relu(x, 0.2), atol=1e-6)   # the op file sets 0.2
    y2 = k(x.numpy())
    assert isinstance(y2, np.ndarray) and np.allclose(y2, y.numpy())
    assert "__aicore__" in k.source and k.report["backend"] == "sim"
    saved = k.save(tmp_path / "saved")
    assert (saved / "report.md").exists()


ROWNORM = Path(__file__).parent / "data" / "rownorm"


def _lower_rownorm(kernel: str, out: Path, capsys) -> Path:
    """Lower a kernel for the rownorm op (tests/lowering/data/rownorm) on the simulator; its output dir."""
    code = main(["lower", str(ROWNORM / kernel), "--op", str(ROWNORM / "op.py"), "--out", str(out),
                 "--trials", "2", "--no-model"])
    assert code == 0, capsys.readouterr().err
    return out


def test_row_and_column_vectors_broadcast_on_the_simulator(tmp_path, capsys):
    final = (_lower_rownorm("kernel.dsl", tmp_path / "r", capsys) / "passes" / "15_deepen.dsl").read_text()
    for op in ("SumEachRow(", "SubColVec(", "DivColVec(", "MulRowVec(", "AddRowVec("):
        assert op in final, op


def test_a_loop_of_phases_runs_its_phases_once_per_iteration_with_barriers(tmp_path, capsys):
    out = _lower_rownorm("groups.dsl", tmp_path / "r", capsys)
    cpp = (out / "ascendc" / "rownorm_groups_custom.cpp").read_text()
    loop = cpp[cpp.index("for (int64_t g_u = 0; g_u < R_u; g_u += G_u) {"):]
    assert loop.count("AscendC::GetBlockIdx();") >= 2 and loop.count("AscendC::SyncAll();") == 2
    partitioned = (out / "passes" / "02_partition.dsl").read_text()
    assert "    for g in range(0, R, G):\n        for core0 in parallel(CORES):" in partitioned
