"""What check accepts, lower lowers: ``prod`` along the last axis of a 2-D tile, and the
``keepdims=True`` forms of axis-0 reductions (a [1, C] row, broadcast like a [C] one), against
PyTorch in the interpreter and on the simulator, on tiles with row and column tails."""
from __future__ import annotations

from ascendcraft.dsl import ast as A

from compiled import compile_verified as _compile


_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x, n):
        return (torch.prod(x, dim=1), torch.prod(x, dim=-1, keepdim=True) * x,
                x - x.sum(dim=0, keepdim=True), x * x.amax(dim=0, keepdim=True),
                x.amin(dim=0, keepdim=True) + x, x.prod(dim=0, keepdim=True) - x,
                x / x.mean(dim=0, keepdim=True), x.sum(dim=0, keepdim=True),
                n.sum(dim=0, keepdim=True, dtype=torch.int32) - n)
R = 10
C = 37
def get_inputs():
    return [torch.rand(R, C) + 0.5, torch.randint(-1000, 1000, (R, C), dtype=torch.int32)]
def get_init_inputs():
    return []
"""

# rows in blocks of 4 (10 rows: a tail of 2) for the row products; columns in blocks of 16 (37:
# a tail of 5) for the column reductions, each kept as a [1, C] row
_KERNEL = """
kernel red(x: gm f32[R, C], n: gm i32[R, C]) -> (yp: gm f32[R], yk: gm f32[R, C], ys: gm f32[R, C],
                                             ym: gm f32[R, C], yn: gm f32[R, C], yq: gm f32[R, C],
                                             ya: gm f32[R, C], yr: gm f32[1, C], yi: gm i32[R, C]):
    const RB = 4
    const CB = 16
    for rb in parallel(cdiv(R, RB)):
        r = rb * RB
        t = load(x[r:r + RB, :])
        store(yp[r:r + RB], prod(t, axis=-1))
        store(yk[r:r + RB, :], prod(t, axis=1, keepdims=True) * t)
    for cb in parallel(cdiv(C, CB)):
        c = cb * CB
        u = load(x[:, c:c + CB])
        store(ys[:, c:c + CB], u - sum(u, axis=0, keepdims=True))
        store(ym[:, c:c + CB], u * max(u, axis=0, keepdims=True))
        store(yn[:, c:c + CB], min(u, axis=-2, keepdims=True) + u)
        store(yq[:, c:c + CB], prod(u, axis=0, keepdims=True) - u)
        store(ya[:, c:c + CB], u / mean(u, axis=0, keepdims=True))
        store(yr[:, c:c + CB], sum(u, axis=0, keepdims=True))
        v = load(n[:, c:c + CB])
        store(yi[:, c:c + CB], sum(v, axis=0, keepdims=True) - v)
"""


def test_row_products_and_keepdims_column_reductions_on_tails(tmp_path):
    k = _compile(tmp_path, _KERNEL, _OP)
    calls = [n.func for n in A.walk(k.lowered.run.final.kernel) if isinstance(n, A.Call)]
    assert calls.count("ProdEachRow") == 2
    assert {"SumRows", "MaxRows", "MinRows", "ProdRows"} <= set(calls)
    assert "SubRowVec" in calls and "MulRowVec" in calls and "DivRowVec" in calls   # [R, C] op [1, C]


_PROD_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x, h):
        return torch.prod(x, dim=1), torch.prod(h.float(), dim=1).half()
R = 3
C = 5000
def get_inputs():
    return [torch.rand(R, C) * 0.02 + 0.995, (torch.rand(R, 70) * 0.2 + 0.95).half()]
def get_init_inputs():
    return []
"""

# 5000 values: 79 rows of 64 (the last padded with ones), so the halving fold meets odd row counts
# (79, 40, 20, 10, 5, 3, 2); the f16 rows are multiplied in f32 (widen), 70 values: 2 rows
_PROD_KERNEL = """
kernel prods(x: gm f32[R, C], h: gm f16[R, H]) -> (p: gm f32[R], q: gm f16[R]):
    for r in parallel(R):
        store(p[r], prod(load(x[r, :])))
        store(q[r], prod(load(h[r, :])))
"""


def test_a_tile_product_folds_in_halves_down_to_one_block_on_the_scalar_unit(tmp_path):
    k = _compile(tmp_path, _PROD_KERNEL, _PROD_OP.replace("(R, 70)", "(R, H)").replace("C = 5000", "C = 5000\nH = 70"))
    assert "while (rows_ > 1)" in k.source and "c_ < 8; ++c_" in k.source and "c_ < 64" not in k.source
