"""Multi-phase kernels over GM scratch: products whose operands and results are scratch tensors,
batch axes sized by consts, phases reading what earlier phases wrote. Each kernel here once
passed `check` and then crashed `lower` with an internal error (a lookup that knew only the
kernel's parameters and dims)."""
from __future__ import annotations

from compiled import compile_verified

_ATTENTION_OP = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_heads):
        super().__init__()
        self.num_heads = num_heads

    def forward(self, Q, K, V):
        return torch.nn.functional.scaled_dot_product_attention(Q, K, V)


batch_size = 2
num_heads = 3
sequence_length = 150
embedding_dimension = 72


def get_inputs():
    shape = (batch_size, num_heads, sequence_length, embedding_dimension)
    return [torch.randn(shape), torch.randn(shape), torch.randn(shape)]


def get_init_inputs():
    return [num_heads]
"""

# scores into a scratch tensor (a product whose result is scratch), a row softmax in place, then a
# second product whose A operand is that scratch; the scratch's head axis is a const bound to an
# attribute, and the products' batch extents are that const, not the dim H of the parameters
_ATTENTION = """
kernel sdpa(q: gm f32[B, H, S, D], k: gm f32[B, H, S, D], v: gm f32[B, H, S, D], num_heads: i32) -> (
        o: gm f32[B, H, S, D]):
    const TM = 128
    const TN = 128
    const TK = 64
    const NH = num_heads
    scratch att: f32[B, NH, S, S]
    for b, h, i, j in parallel(B, NH, cdiv(S, TM), cdiv(S, TN)):
        m = i * TM
        n = j * TN
        ta = load(q[b, h, m:m + TM, 0:TK], space=l1)
        acc = matmul(ta, load(k[b, h, n:n + TN, 0:TK], space=l1), transpose_b=True)
        for kk in range(TK, D, TK):
            ta = load(q[b, h, m:m + TM, kk:kk + TK], space=l1)
            acc = acc + matmul(ta, load(k[b, h, n:n + TN, kk:kk + TK], space=l1), transpose_b=True)
        store(att[b, h, m:m + TM, n:n + TN], acc)
    for b, h, r in parallel(B, NH, S):
        t = load(att[b, h, r, :]) * (1.0 / sqrt(D * 1.0))
        e = exp(t - max(t))
        store(att[b, h, r, :], e / sum(e))
    for b, h, i, j in parallel(B, NH, cdiv(S, TM), cdiv(D, TN)):
        m = i * TM
        n = j * TN
        ta = load(att[b, h, m:m + TM, 0:TK], space=l1)
        acc = matmul(ta, load(v[b, h, 0:TK, n:n + TN], space=l1))
        for kk in range(TK, S, TK):
            ta = load(att[b, h, m:m + TM, kk:kk + TK], space=l1)
            acc = acc + matmul(ta, load(v[b, h, kk:kk + TK, n:n + TN], space=l1))
        store(o[b, h, m:m + TM, n:n + TN], acc)
"""


def test_attention_through_a_scratch_of_scores_lowers_and_verifies(tmp_path):
    k = compile_verified(tmp_path, _ATTENTION, _ATTENTION_OP, trials=2, model_time=True)
    modeled = k.report["modeled"]
    # the cube floor found the scratch operand's dtype (it was a KeyError), and it bounds the time
    assert modeled["floor_us"] > 0 and modeled["time_us"] >= modeled["floor_us"]
    passes = [lv["notes"] for lv in k.report["passes"] if lv["name"] == "cube"][0]
    assert sum("att" in n for n in passes) == 2      # both products went through the Matmul API
