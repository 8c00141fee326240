"""A product tile read by vector ops in its own phase (a fused epilogue): the checker's meaning, the
cube pass's per-tile form, its refusals, and kernels on the simulator against torch."""
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

ROOT = Path(__file__).resolve().parents[2]
FUSED = ROOT / "examples" / "fuse" / "matmul_bias_relu"

OP = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, w, b):
        h = x @ w.T + b
        return torch.where(h > 0, h, 0.1 * h), h.amax(dim=1, keepdim=True)


def get_inputs():
    return [torch.rand({m}, {k}) - 0.5, torch.randn({n}, {k}), torch.randn({n})]


def get_init_inputs():
    return []
'''

# a leaky relu of x @ w^T + b, and each row's maximum (atomic max has no DSL form: the row maxima of
# the tiles of one row block go to a scratch, then a phase folds them)
KERNEL = '''kernel k(x: gm f32[M, K], w: gm f32[N, K], b: gm f32[N]) -> (y: gm f32[M, N], r: gm f32[M, 1]):
    const TM = 128
    const TN = 128
    const TK = 32
    const NT = cdiv(N, TN)
    scratch part: f32[NT, M]
    rv = view(r, (M,))
    for i, j in parallel(cdiv(M, TM), NT):
        m = i * TM
        n = j * TN
        a = load(x[m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(w[n:n + TN, 0:TK], space=l1), transpose_b=True)
        for k in range(TK, K, TK):
            a = load(x[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(a, load(w[n:n + TN, k:k + TK], space=l1), transpose_b=True)
        h = acc + load(b[n:n + TN])
        store(y[m:m + TM, n:n + TN], maximum(h, 0.1 * h))
        store(part[j, m:m + TM], max(h, axis=1))
    for i in parallel(cdiv(M, 1024)):
        q = i * 1024
        t = load(part[0, q:q + 1024])
        for j in range(1, NT):
            t = maximum(t, load(part[j, q:q + 1024]))
        store(rv[q:q + 1024], t)
'''


def _cube(text: str, d: Path = FUSED):
    return run_cube(text, d)


def test_each_cores_tiles_of_a_row_are_one_strip_the_cube_computes_ahead():
    """Column tiles fastest: the tiles are dealt to the cores in runs, each run's part in one row of C
    a strip (Iterate<false> into the core's workspace); the tile's value is its own product."""
    run = _cube((FUSED / "kernel.dsl").read_text())
    after = run.final.text
    assert "scratch _mw0: gm f32[CORES, _wn0]" in after and "const _sw0 = minimum(_nj0, cdiv(_nt0, CORES)) * TN" in after
    assert "for core0 in parallel(CORES):" in after and "for _f0 in range(_lo0, _hi0):" in after
    assert "j = _f0 % cdiv(N, TN)" in after and "i = _f0 // cdiv(N, TN)" in after
    assert ("acc = Matmul(x[m:m + TM, 0:K], gemm_weight[n:n + TN, 0:K], transpose_b=True, base=(TM, TN, TK), "
            "strip=(_f0, maximum(_lo0, _f0 - j), minimum(_hi0, _f0 - j + _nj0), _sw0), workspace=_mw0[core0, :])"
            in after)
    assert "store(y[m:m + TM, n:n + TN], relu(acc + load(bias[n:n + TN])))" in after and "space=l1" not in after
    assert any("computed ahead as one strip" in note for note in run.final.notes)


def test_with_rows_fastest_each_tile_is_its_own_product_in_the_phases_loop():
    text = (FUSED / "kernel.dsl").read_text()
    old = "    for i, j in parallel(cdiv(M, TM), cdiv(N, TN)):"
    assert old in text
    run = _cube(text.replace(old, "    for j, i in parallel(cdiv(N, TN), cdiv(M, TM)):"))
    after = run.final.text
    assert "for j, i in parallel(cdiv(N, TN), cdiv(M, TM)):" in after and "strip=" not in after
    assert ("acc = Matmul(x[m:m + TM, 0:K], gemm_weight[n:n + TN, 0:K], transpose_b=True, base=(TM, TN, TK))"
            in after)
    assert any("tile by tile, each handed to UB" in note for note in run.final.notes)


@pytest.mark.parametrize("edit, why", [
    ([("space=l1)", "space=l1, pad=0.0)"), ("load(bias[n:n + TN])", "load(bias[n:n + TN], pad=0.0)")],
     "take no pad="),
    ([("const TN = 256", "const TN = 130")], "multiples of 16"),   # 650 = 5 x 130: no tail
    ([("store(y[m:m + TM, n:n + TN], relu(acc + load(bias[n:n + TN])))",
       "store(y[m:m + TM, n:n + TN], relu(acc + load(bias[n:n + TN])))\n"
       "        store(y[m:m + TM, n:n + TN], matmul(load(x[m:m + TM, 0:TK], space=l1), "
       "load(gemm_weight[n:n + TN, 0:TK], space=l1), transpose_b=True))")], "no second product"),
])
def test_fused_forms_the_lowering_does_not_take_are_refused_with_the_reason(edit, why):
    text = (FUSED / "kernel.dsl").read_text()
    for old, new in edit:
        assert old in text
        text = text.replace(old, new)
    with pytest.raises(PassError, match=why):
        _cube(text)


def test_vector_ops_read_the_product_as_a_ub_tile():
    src = ("kernel k(a: gm f32[M, K], b: gm f32[K, N]) -> (c: gm f32[M, N], d: gm f16[M, N]):\n"
           "    for i in parallel(1):\n"
           "        acc = matmul(load(a[0:16, 0:16], space=l1), load(b[0:16, 0:16], space=l1))\n"
           "        store(c[0:16, 0:16], exp(acc) * 2.0)\n"
           "        store(d[0:16, 0:16], cast(acc, f16))\n")
    ck = check(parse(src, "k.dsl"), Binding({"M": 16, "K": 16, "N": 16}, {}), load_chip("910B2"))
    spaces = {type(e).__name__: t.space for e, t in ((e, ck.expr_types[id(e)]) for e in _values(ck.kernel))
              if hasattr(t, "space")}
    assert spaces["Binary"] == "ub" and spaces["Call"] == "ub"
    with pytest.raises(DSLError, match="reads ub tiles and the cube's finished product"):
        check(parse(src.replace("exp(acc) * 2.0", "load(a[0:16, 0:16], space=l1) * 2.0"), "k.dsl"),
              Binding({"M": 16, "K": 16, "N": 16}, {}), load_chip("910B2"))


def _values(kernel):
    from ascendcraft.dsl import ast as A
    return [s.value for s in A.walk(kernel) if isinstance(s, A.Store)]


def test_an_element_wise_op_writes_over_an_operand_only_where_it_dies_and_is_read_once():
    """The cube pass's form: relu(acc + b) with acc a 128 x 256 f32 product in UB holds that one
    tile (each op over the last); with acc read twice the sum cannot take its place, and two tiles
    exceed the UB."""
    head = ("kernel k(a: gm f32[M, K], w: gm f32[N, K], b: gm f32[N]) -> (c: gm f32[M, N]):\n"
            "    for i, j in parallel(cdiv(M, 128), cdiv(N, 256)):\n"
            "        m = i * 128\n"
            "        n = j * 256\n"
            "        acc = Matmul(a[m:m + 128, 0:K], w[n:n + 256, 0:K], transpose_b=True, base=(128, 256, 64))\n")
    binding, chip = Binding({"M": 256, "K": 64, "N": 512}, {}), load_chip("910B2")
    check(parse(head + "        store(c[m:m + 128, n:n + 256], relu(acc + load(b[n:n + 256])))\n", "k.dsl"),
          binding, chip)
    with pytest.raises(DSLError, match="exceeds the 196,608-byte UB"):
        check(parse(head + "        store(c[m:m + 128, n:n + 256], relu(acc + load(b[n:n + 256])) * acc)\n",
                    "k.dsl"), binding, chip)


@pytest.mark.parametrize("tiles, shape, ahead", [
    ("i, j in parallel(cdiv(M, TM), NT)", (150, 70, 100), True),
    ("i, j in parallel(cdiv(M, TM), NT)", (130, 45, 300), True),
    ("j, i in parallel(NT, cdiv(M, TM))", (130, 45, 300), False),
])
def test_a_fused_epilogue_matches_torch_on_the_simulator_with_tails_on_every_axis(tmp_path, tiles, shape, ahead):
    """N = 100 < TN = 128: each product block is narrower than the base block (its rows move to the tile's
    pitch in UB); N = 300 = 2 x 128 + 44: a narrow last block of a wider product; M and K end in
    partial tiles too; strips computed ahead (columns fastest) and tiles one by one (rows fastest).
    The row maxima are taken where each row's largest value comes late in it."""
    m, k, n = shape
    (tmp_path / "op.py").write_text(OP.format(m=m, k=k, n=n))
    (tmp_path / "k.dsl").write_text(KERNEL.replace("i, j in parallel(cdiv(M, TM), NT)", tiles))
    kern = ascendcraft.compile(tmp_path / "k.dsl", tmp_path / "op.py", trials=1)
    assert ("Iterate<false>()" in kern.source) == ahead and "IterateAll" not in kern.source
    assert ("GetTensorC<false>(" if ahead else "GetTensorC(") in kern.source
    torch.manual_seed(0)
    x = torch.rand(m, k) - 0.5
    w, bias = torch.randn(n, k), torch.randn(n)
    w[:, :] *= torch.linspace(0.1, 1.0, n)[:, None]      # the later columns the larger
    y, r = kern(x, w, bias)
    h = x @ w.T + bias
    torch.testing.assert_close(y, torch.where(h > 0, h, 0.1 * h), rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(r, h.amax(dim=1, keepdim=True), rtol=1e-4, atol=1e-4)


def test_a_column_variable_that_also_picks_b_s_matrix_keeps_one_tile_per_iteration(tmp_path):
    """B's batch index is the column tile's variable: the tiles of a row multiply different matrices,
    so they are no strip (the strip is started from its first tile's B)."""
    (tmp_path / "op.py").write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n    def forward(self, a, b):\n"
        "        return torch.relu(torch.cat([a @ b[j, :, j * 128:(j + 1) * 128] for j in range(b.shape[0])], 1))\n\n\n"
        "def get_inputs():\n    return [torch.rand(200, 96), torch.rand(2, 96, 256)]\n\n\n"
        "def get_init_inputs():\n    return []\n")
    text = ("kernel k(a: gm f32[M, K], b: gm f32[J, K, N]) -> (c: gm f32[M, N]):\n"
            "    for i, j in parallel(cdiv(M, 128), J):\n"
            "        m = i * 128\n"
            "        n = j * 128\n"
            "        ta = load(a[m:m + 128, 0:64], space=l1)\n"
            "        acc = matmul(ta, load(b[j, 0:64, n:n + 128], space=l1))\n"
            "        for k in range(64, K, 64):\n"
            "            ta = load(a[m:m + 128, k:k + 64], space=l1)\n"
            "            acc = acc + matmul(ta, load(b[j, k:k + 64, n:n + 128], space=l1))\n"
            "        store(c[m:m + 128, n:n + 128], relu(acc))\n")
    after = _cube(text, tmp_path).final.text
    assert "strip=" not in after and "for i, j in parallel(cdiv(M, 128), J):" in after
