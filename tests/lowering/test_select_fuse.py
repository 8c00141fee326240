"""select fuses a tile times a scalar added to another tile into one Axpy (lowering_passes/select_fuse.py),
only where the product is read once and the tiles are float; the kernel computes what PyTorch does."""
from __future__ import annotations

from ascendcraft.dsl import ast as A

from compiled import compile_verified

_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x, w, h):
        p = x * 3.0
        return w + x * 0.5, p + w + p, h + h * 2
B = 3
N = 45
def get_inputs():
    return [torch.randn(B, N), torch.randn(B, N), torch.randint(-100, 100, (B, N), dtype=torch.int32)]
def get_init_inputs():
    return []
"""

_KERNEL = """
kernel k(x: gm f32[B, N], w: gm f32[B, N], h: gm i32[B, N]) -> (y: gm f32[B, N], z: gm f32[B, N],
                                                                 v: gm i32[B, N]):
    for b in parallel(B):
        t = load(x[b, :])
        u = load(w[b, :])
        store(y[b, :], u + t * 0.5)
        p = t * 3.0
        store(z[b, :], p + u + p)
        g = load(h[b, :])
        store(v[b, :], g + g * 2)
"""


def test_a_product_read_once_is_added_by_axpy_and_the_others_stay_apart(tmp_path):
    k = compile_verified(tmp_path, _KERNEL, _OP)
    select = next(lv for lv in k.lowered.run.levels if lv.pass_name == "select").kernel
    calls = [n.func for n in A.walk(select) if isinstance(n, A.Call)]
    assert calls.count("Axpy") == 1                     # u + t * 0.5
    assert calls.count("Muls") >= 2                     # p (read twice) and the i32 product
    assert "AscendC::Axpy(" in k.source
