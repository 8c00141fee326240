"""The cube pass (matmul phases to the Matmul API) and the kernels it leads to."""
from pathlib import Path

import pytest
import torch

import ascendcraft
from ascendcraft.chips import load_chip
from ascendcraft.dsl.checker import Binding, check
from ascendcraft.dsl.parser import parse
from ascendcraft.errors import DSLError
from ascendcraft.passes import PassError

from cube_only import run_cube
from ascendcraft.lowering_passes.cube_grid import block_extent, choose_grid, choose_k_split

ROOT = Path(__file__).resolve().parents[2]
MATMUL = ROOT / "examples" / "matmul" / "matmul"
FUSED = ROOT / "examples" / "fuse" / "matmul_bias_relu"


def _cube(text: str, d: Path = MATMUL):
    return run_cube(text, d)


def test_a_k_accumulation_becomes_one_matmul_call_per_core_on_a_grid():
    run = _cube((MATMUL / "kernel.dsl").read_text())
    after = run.final.text
    # the op's real shapes (700 x 530) on 24 cube cores: a 6 x 4 grid of 128 x 144 blocks
    assert "const _gm0 = 6\n" in after and "const _gn0 = 4\n" in after
    assert "const _sm0 = cdiv(cdiv(M, _gm0), 16) * 16" in after
    assert ("store(c[_r0:_r0 + _sm0, _c0:_c0 + _sn0], Matmul(a[_r0:_r0 + _sm0, 0:K], b[0:K, _c0:_c0 + _sn0], "
            "base=(TM, TN, TK)))") in after
    assert "= matmul(" not in after and "+ matmul(" not in after and "for core0 in parallel(CORES):" in after
    assert run.final.notes == ["cube: c = a @ b on a 6 x 4 grid of cores (blocks of 128 x 144 at the real shapes, "
                               "base block 128 x 256 x 64 (TM x TN x TK))"]


def test_a_transposed_b_keeps_its_layout():
    after = _cube((FUSED / "phases.dsl").read_text(), FUSED).final.text
    assert "Matmul(x[_r0:_r0 + _sm0, 0:K], gemm_weight[_c0:_c0 + _sn0, 0:K], transpose_b=True" in after
    assert "relu(" in after     # the vector epilogue phase is untouched


# (2048, 4096): 512 x 688 blocks beat 688 x 512 ones: their partial base blocks are 176 columns
# wide, not 48 rows high, and a 48-row block streams as much as it computes
@pytest.mark.parametrize("rows, cols, cores, grid", [(2048, 4096, 24, (4, 6)), (1024, 8192, 24, (8, 3)),
                                                     (700, 530, 24, (6, 4)), (16, 16, 24, (1, 24))])
def test_the_grid_gives_the_slowest_core_the_least_base_block_time(rows, cols, cores, grid):
    assert choose_grid(rows, cols, cores, (128, 256), 2048, 4, 110.0) == grid
    gm, gn = grid
    assert gm * gn <= cores
    assert block_extent(rows, gm) * gm >= rows and block_extent(rows, gm) % 16 == 0


# (rows, cols, K): a small C over a huge K is cut into K slices (MKB's large-K task: two 128 x 256
# blocks, 12 slices each, fill the 24 cores); C of many blocks keeps K whole
@pytest.mark.parametrize("rows, cols, k, split", [(256, 256, 524288, (2, 1, 12)), (64, 64, 16384, (1, 1, 24)),
                                                  (2048, 4096, 8192, (4, 6, 1)), (256, 256, 2000, (4, 6, 1))])
def test_a_small_c_over_a_long_k_splits_k_over_the_cores(rows, cols, k, split):
    # 910B2's fp32 cube rate, L2 stream and modelled HBM bandwidth per cycle, 24 cube cores
    gm, gn, gk = choose_k_split(rows, cols, k, 24, (128, 256), 64, 2048, 4, 110.0, 811.1)
    assert (gm, gn, gk) == split
    assert gm * gn * gk <= 24 and (gk == 1 or k // gk >= 8 * 64)


_SPLIT_K_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, A, B):
        return torch.matmul(A, B)
M = 70
N = 50
K = 16384
def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]
def get_init_inputs():
    return []
"""


def test_a_k_split_zeroes_c_then_adds_each_slice_atomically_and_matches_torch(tmp_path):
    text = (MATMUL / "kernel.dsl").read_text()
    (tmp_path / "k.dsl").write_text(text)
    (tmp_path / "op.py").write_text(_SPLIT_K_OP)
    mm = ascendcraft.compile(tmp_path / "k.dsl", tmp_path / "op.py", trials=2)
    assert mm.report["backend_verification"]["verdict"] == "PASS"
    assert mm.report["backend_second_shapes_verification"]["verdict"] == "PASS"
    notes = next(p["notes"] for p in mm.report["passes"] if p["name"] == "cube")
    assert any("K cut into" in n and "added into c (zeroed first)" in n for n in notes), notes
    assert "IterateAll(c_uGm[" in mm.source and "], 1);" in mm.source and "SyncAll" in mm.source
    a, b = torch.randn(70, 16384), torch.randn(16384, 50)
    assert torch.allclose(mm(a, b), a @ b, rtol=1e-3, atol=1e-2)


@pytest.mark.parametrize("edit, reason", [
    ("store(c[m:m + TM, n:n + TN], acc)", "the K loop does not accumulate"),
    ("acc = acc + matmul(ta, load(b[k:k + TK, n:n + TN], space=l1))", "after"),
])
def test_other_uses_of_matmul_are_refused_with_the_reason(edit, reason):
    text = (MATMUL / "kernel.dsl").read_text()
    if reason == "after":   # vector work before the product (after the K loop, it would be a fused epilogue)
        text = text.replace("        acc = matmul(ta,", "        t0 = load(a[m:m + TM, 0:TK])\n        acc = matmul(ta,")
        reason = "unexpected statement"
    else:                   # drop the accumulation from the K loop
        text = text.replace("            acc = acc + matmul(ta, load(b[k:k + TK, n:n + TN], space=l1))\n", "")
    with pytest.raises(PassError) as e:
        _cube(text)
    assert e.value.pass_name == "cube" and "not a K accumulation" in str(e.value) and reason in str(e.value)
    if reason == "unexpected statement":   # located at the statement, in the kernel's own text
        assert "|         t0 = load(a[m:m + TM, 0:TK])" in str(e.value)


def test_a_product_starting_inside_k_is_refused_at_its_load():
    """A K split written by hand (the first product at k0, not 0) is refused (the lowering splits K
    itself): the error names the load that starts inside K, not the phase, and states the form the
    lowering takes, naming no file the model cannot read (its rules are in the language reference)."""
    text = (MATMUL / "kernel.dsl").read_text().replace(
        "        ta = load(a[m:m + TM, 0:TK], space=l1)\n        acc = matmul(ta, load(b[0:TK, n:n + TN], space=l1))",
        "        ta = load(a[m:m + TM, TK:TK + TK], space=l1)\n        acc = matmul(ta, load(b[TK:TK + TK, n:n + TN], space=l1))")
    with pytest.raises(PassError) as e:
        _cube(text)
    message = str(e.value)
    assert "must start at K = 0" in message and "|         ta = load(a[m:m + TM, TK:TK + TK], space=l1)" in message
    assert "acc = matmul(...)" in message and "Cube (matmul)" in message
    assert "docs/lowering.md" not in message and "examples/" not in message


def test_a_phase_that_leaves_part_of_c_alone_is_not_rewritten():
    text = (MATMUL / "kernel.dsl").read_text().replace("parallel(cdiv(M, TM), cdiv(N, TN))",
                                                       "parallel(cdiv(M, TM), cdiv(N, TN) - 1)")
    with pytest.raises(PassError, match=r"parallel extent of j must be cdiv\(<C extent>, TN\)"):
        _cube(text)


def test_matmul_is_a_stores_value_or_a_product_tile_assigned():
    head = ("kernel k(a: gm f32[M, K], b: gm f32[K, N]) -> (c: gm f32[M, N]):\n"
            "    for i in parallel(1):\n")
    binding = Binding({"M": 4, "K": 8, "N": 4}, {})
    with pytest.raises(DSLError, match="the value of a store .* or of an assignment"):
        check(parse(head + "        store(c, Matmul(a, b, base=(16, 16, 16)) + 1.0)\n", "k.dsl"), binding,
              load_chip("910B2"))
    # assigned, the product is one base block in UB: a tile larger than the base block is refused
    ok = check(parse(head + "        t = Matmul(a, b, base=(16, 16, 16))\n        store(c, t)\n", "k.dsl"), binding,
               load_chip("910B2"))
    assert any(getattr(t, "space", None) == "ub" and getattr(t, "shape", None) == (4, 4)
               for t in ok.expr_types.values())
    with pytest.raises(DSLError, match="exceeds base 16 x 16"):
        check(parse(head + "        t = Matmul(a, b, base=(16, 16, 16))\n        store(c, t)\n", "k.dsl"),
              Binding({"M": 32, "K": 8, "N": 4}, {}), load_chip("910B2"))


def test_a_cube_kernel_and_a_mixed_one_compile_and_match_torch_on_the_simulator(tmp_path):
    mm = ascendcraft.compile(MATMUL / "kernel.dsl", MATMUL / "op.py", trials=1)
    assert "#define ASCENDC_CUBE_ONLY" in mm.source and "KERNEL_TYPE_AIC_ONLY" in mm.source
    assert "mm0.IterateAll(c_uGm[" in mm.source and "REGIST_MATMUL_OBJ(&pipe" in mm.source
    assert "InitBuffer(scalarBuf" not in mm.source          # the AIC has no UB
    a, b = torch.rand(200, 300), torch.rand(300, 150)
    assert torch.allclose(mm(a, b), a @ b, rtol=1e-4, atol=1e-4)
    report = (mm.save(tmp_path / "mm") / "report.md").read_text()
    assert "## What the passes decided\n\n- cube: c = a @ b on a 6 x 4 grid of cores" in report
    fused = ascendcraft.compile(FUSED / "kernel.dsl", FUSED / "op.py", trials=1)
    assert "KERNEL_TYPE_MIX_AIC_1_2" in fused.source and "GetBlockIdx() % AscendC::GetTaskRation() == 0" in fused.source
    assert "SetTensorB(gemm_weight_uGm[" in fused.source and ", true);" in fused.source
    assert fused.report["backend_verification"]["passed"]


def test_the_floor_of_a_cube_kernel_counts_its_macs_at_the_operand_rate():
    from types import SimpleNamespace

    from ascendcraft.lower import _cube_floor_us
    lowered = _cube((MATMUL / "kernel.dsl").read_text()).final
    cost = SimpleNamespace(per_core=[SimpleNamespace(cube_macs=2048 * 4096 * 8192)])
    chip = load_chip("910B2")
    # fp32: half the 16x16x16 fp16 rate, on 24 AIC at 1.8 GHz
    assert _cube_floor_us(lowered, cost, chip) == pytest.approx(2048 * 4096 * 8192 / (24 * 2048 * 1.8e9) * 1e6)


def test_f16_operands_accumulate_in_f32_through_the_matmul_api(tmp_path):
    (tmp_path / "op.py").write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
        "    def forward(self, A, B):\n        return torch.matmul(A.float(), B.float())\n\n\n"
        "def get_inputs():\n    return [torch.rand(150, 200).half(), torch.rand(200, 90).half()]\n\n\n"
        "def get_init_inputs():\n    return []\n")
    text = (MATMUL / "kernel.dsl").read_text().replace("a: gm f32[M, K], b: gm f32[K, N]",
                                                       "a: gm f16[M, K], b: gm f16[K, N]")
    (tmp_path / "kernel.dsl").write_text(text.replace("const TK = 64", "const TK = 128"))
    k = ascendcraft.compile(tmp_path / "kernel.dsl", tmp_path / "op.py", trials=1)
    assert "MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>" in k.source
    a, b = torch.rand(64, 200).half(), torch.rand(200, 48).half()
    assert torch.allclose(k(a, b), a.float() @ b.float(), rtol=1e-3, atol=1e-3)


_SCRATCH_C_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, A, B):
        return torch.relu(torch.matmul(A, B.T))
M = 40
N = 72
K = 20000
def get_inputs():
    return [torch.randn(M, K), torch.randn(N, K)]
def get_init_inputs():
    return []
"""

_SCRATCH_C = """
kernel mmt(a: gm f32[M, K], b: gm f32[N, K]) -> (c: gm f32[M, N]):
    const TM = 128
    const TN = 128
    const TK = 64
    scratch p: f32[M, N]
    for i, j in parallel(cdiv(M, TM), cdiv(N, TN)):
        m = i * TM
        n = j * TN
        ta = load(a[m:m + TM, 0:TK], space=l1)
        acc = matmul(ta, load(b[n:n + TN, 0:TK], space=l1), transpose_b=True)
        for k in range(TK, K, TK):
            ta = load(a[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(ta, load(b[n:n + TN, k:k + TK], space=l1), transpose_b=True)
        store(p[m:m + TM, n:n + TN], acc)
    for r in parallel(M):
        store(c[r, :], relu(load(p[r, :])))
"""


def test_a_product_into_a_scratch_tensor_with_a_transposed_b_splits_k_and_matches_torch(tmp_path):
    # the cube pass looked C's type up among the parameters only: a scratch C crashed it
    # ('NoneType' object has no attribute 'type'), a kernel check had passed
    (tmp_path / "k.dsl").write_text(_SCRATCH_C.lstrip("\n"))
    (tmp_path / "op.py").write_text(_SCRATCH_C_OP)
    mm = ascendcraft.compile(tmp_path / "k.dsl", tmp_path / "op.py", trials=2)
    assert mm.report["backend_verification"]["verdict"] == "PASS"
    assert mm.report["backend_second_shapes_verification"]["verdict"] == "PASS"
    notes = next(p["notes"] for p in mm.report["passes"] if p["name"] == "cube")
    assert any("K cut into" in n and "added into p (zeroed first)" in n for n in notes), notes
