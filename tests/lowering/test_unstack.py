"""The unstack pass: runs of rank-3 and rank-4 tiles become loops over their leading axis."""
import re

import pytest
import torch

import ascendcraft
from ascendcraft.chips import load_chip
from ascendcraft.dsl.parser import parse
from ascendcraft.lower import default_passes
from ascendcraft.passes import PassError, run_passes
from ascendcraft.task import load_task

_CHIP = load_chip("910B2")

_BIAS_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x, w, bb):
        return torch.relu(x * w) + bb
B = 6
N = 40
D = 70
def get_inputs():
    return [torch.randn(B, N, D), torch.randn(N, D), torch.randn(B, 1, D)]
def get_init_inputs():
    return []
"""

# [4, 16, D] tiles with a [16, D] weight and a [4, 1, D] bias: B = 6 leaves a tail of 2
_BIAS = """kernel bias3(x: gm f32[B, N, D], w: gm f32[N, D], bb: gm f32[B, 1, D]) -> (y: gm f32[B, N, D]):
    const TB = 4
    const TN = 16
    for i, j in parallel(cdiv(B, TB), cdiv(N, TN)):
        b = i * TB
        n = j * TN
        t = load(x[b:b + TB, n:n + TN, :])
        wt = load(w[n:n + TN, :])
        bt = load(bb[b:b + TB, :, :])
        store(y[b:b + TB, n:n + TN, :], relu(t * wt) + bt)
"""

_FOUR_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x, s):
        sm = torch.softmax(x, dim=-1) * s
        return sm, torch.nn.functional.max_pool2d(x, kernel_size=2, stride=2), torch.argmax(x, dim=2)
N = 5
C = 6
H = 7
W = 50
def get_inputs():
    return [torch.randn(N, C, H, W), torch.randn(1, C, 1, W)]
def get_init_inputs():
    return []
"""

# rank 4 (two rounds), a [1, C, 1, W] scale (leading extent 1), keepdims reductions, a window over
# the two trailing axes and an argmax along a trailing axis of rank-3 tiles
_FOUR = """kernel four(x: gm f32[N, C, H, W], s: gm f32[1, C, 1, W]) -> (
        y: gm f32[N, C, H, W], p: gm f32[N, C, HO, WO], a: gm i64[N, C, W]):
    const TN = 2
    for i in parallel(cdiv(N, TN)):
        n = i * TN
        t = load(x[n:n + TN, :, :, :])
        e = exp(t - max(t, axis=-1, keepdims=True))
        sc = load(s[0:1, :, :, :])
        store(y[n:n + TN, :, :, :], e / sum(e, axis=3, keepdims=True) * sc)
    for n in parallel(N):
        u = load(x[n])
        store(p[n], window_max(u, kernel=(2, 2), stride=(2, 2)))
        store(a[n], argmax(u, axis=1))
"""


def _task(tmp_path, op_text):
    (tmp_path / "op.py").write_text(op_text)
    return load_task(tmp_path / "op.py")


def _up_to(last, kernel_text, task):
    chain = default_passes()
    chain = chain[:[p.name for p in chain].index(last) + 1]
    return run_passes(parse(kernel_text, "k.dsl"), chain, task=task, shapes=task.shapes(), chip=_CHIP, trials=2)


def _refusal(tmp_path, last, kernel_text, op_text) -> str:
    """The error of the chain up to ``last`` on the kernel."""
    with pytest.raises(PassError) as err:
        _up_to(last, kernel_text, _task(tmp_path, op_text))
    return str(err.value)


def test_a_rank_3_run_becomes_a_loop_over_its_clamped_leading_axis(tmp_path):
    run = _up_to("unstack", _BIAS, _task(tmp_path, _BIAS_OP))
    after = run.final.text
    assert after != run.levels[-2].text
    loop = after[after.index("wt = load"):]
    assert loop.splitlines()[:8] == [
        "wt = load(w[n:n + TN, :])",
        "            for _lead0 in range(minimum(b + TB, B) - maximum(b, 0)):",
        "                t = load(x[maximum(b, 0) + _lead0, n:n + TN, :])",
        "                bt = load(bb[maximum(b, 0) + _lead0, :, :])",
        "                _t0 = t * wt",
        "                _t1 = relu(_t0)",
        "                _t2 = _t1 + bt",
        "                store(y[maximum(b, 0) + _lead0, n:n + TN, :], _t2)"]
    assert run.levels[-1].notes == ["unstack: the [4, 1, 70] and [4, 16, 70] tiles of lines 7-10 are computed one "
                                    "leading index at a time (a loop of [1, 70] and [16, 70] tiles)"]


def test_rank_4_takes_two_rounds_and_a_leading_extent_of_one_is_indexed_once(tmp_path):
    after = _up_to("unstack", _FOUR, _task(tmp_path, _FOUR_OP)).final.text
    assert "for _lead2 in range(C):" in after          # the second round, over C
    assert "t = load(x[maximum(n, 0) + _lead0, _lead2, :, :])" in after
    assert "sc = load(s[0, _lead2, :, :])" in after     # [1, C, 1, W]: index 0 of the first axis
    assert "sum(e, keepdims=True, axis=1)" in after     # axis 3 of the rank-4 tile
    assert "argmax(u, axis=0)" in after and "window_max(u, kernel=(2, 2), stride=(2, 2))" in after
    for line in after.splitlines():                     # no tile of rank 3 is left
        assert "x[n:n + TN" not in line and "load(x[n])" not in line


def test_unstacked_kernels_match_torch_on_the_simulator_with_tails_at_both_shape_sets(tmp_path):
    for name, kernel, op in (("bias3", _BIAS, _BIAS_OP), ("four", _FOUR, _FOUR_OP)):
        d = tmp_path / name
        d.mkdir()
        (d / "k.dsl").write_text(kernel)
        (d / "op.py").write_text(op)
        k = ascendcraft.compile(d / "k.dsl", d / "op.py", trials=2)
        assert k.report["backend_verification"]["verdict"] == "PASS"
        assert k.report["backend_second_shapes_verification"]["verdict"] == "PASS"
    x, w, bb = torch.randn(7, 33, 20), torch.randn(33, 20), torch.randn(7, 1, 20)
    bias3 = ascendcraft.compile(tmp_path / "bias3" / "k.dsl", tmp_path / "bias3" / "op.py", trials=1)
    assert torch.allclose(bias3(x, w, bb), torch.relu(x * w) + bb, atol=1e-5)


@pytest.mark.parametrize("value, refused, by", [
    ("relu(t - sum(t, axis=0))", "applies `sum` over its leading axis of extent 1 or over the whole tile", "unstack"),
    ("relu(t - sum(t))", "applies `sum` over its leading axis of extent 1 or over the whole tile", "unstack"),
    ("t - cumsum(t, axis=0)", "applies `cumsum` over its leading axis or the whole tile (only sum, mean", "unstack"),
    ("t[0:1, 0:N, :] * 2.0", "applies a slice to it", "unstack"),
    # each slice's statement is one select has no rule for (a scan along axis 0): it says so
    ("cumsum(t, axis=1)", "the lowering computes it one leading index at a time", "select"),
])
def test_a_rank_3_tile_that_does_not_unstack_is_refused_at_the_writers_line(tmp_path, value, refused, by):
    op = _BIAS_OP.replace("torch.relu(x * w) + bb", "x")
    kernel = ("kernel k(x: gm f32[B, N, D], w: gm f32[N, D], bb: gm f32[B, 1, D]) -> (y: gm f32[B, N, D]):\n"
              "    for b in parallel(B):\n"
              "        t = load(x[b:b + 1, :, :])\n"
              f"        store(y[b:b + 1, :, :], {value})\n")
    text = _refusal(tmp_path, "select", kernel, op)
    assert f"pass '{by}'" in text and refused in text and "k.dsl:4:" in text, text


def test_a_rank_3_value_carried_to_a_later_iteration_is_refused_where_it_is_combined(tmp_path):
    kernel = ("kernel k(x: gm f32[B, N, D], w: gm f32[N, D], bb: gm f32[B, 1, D]) -> (y: gm f32[B, N, D]):\n"
              "    for i in parallel(1):\n"
              "        prev = load(x[0:1, :, :])\n"
              "        for b in range(B):\n"
              "            t = load(x[b:b + 1, :, :])\n"
              "            store(y[b:b + 1, :, :], t + prev)\n"
              "            prev = t\n")
    op = _BIAS_OP.replace("torch.relu(x * w) + bb", "x + torch.cat([x[:1], x[:-1]])")
    with pytest.raises(PassError) as err:
        _up_to("unstack", kernel, _task(tmp_path, op))
    text = str(err.value)
    assert "pass 'unstack'" in text and "k.dsl:6:" in text and "[1, 40, 70] tile (line 5)" in text, text


def test_a_store_of_a_row_to_a_rank_3_region_is_a_loop_of_row_stores(tmp_path):
    kernel = ("kernel k(x: gm f32[B, N, D], w: gm f32[N, D], bb: gm f32[B, 1, D]) -> (y: gm f32[B, N, D]):\n"
              "    for b in parallel(B):\n"
              "        store(y[b:b + 1, :, :], load(w[:, :]) * 2.0)\n")
    op = _BIAS_OP.replace("torch.relu(x * w) + bb", "(w * 2.0).expand(x.shape).contiguous()")
    after = _up_to("unstack", kernel, _task(tmp_path, op)).final.text
    assert "for _lead0 in range(minimum(b + 1, B) - maximum(b, 0)):" in after
    assert "store(y[maximum(b, 0) + _lead0, :, :], _t1)" in after


# ---------------------------------------------------------------- folds: reductions over the leading axis

_FOLD_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x, q):
        return ((x * 2.0).sum(0) + 1.0, x.max(0).values, x.min(0).values.mean(1), x.mean(),
                q.sum(1), q.prod(0))
B = 5
N = 40
D = 33
P = 5
C = 3
H = 7
W = 20
def get_inputs():
    return [torch.randn(B, N, D), torch.rand(P, C, H, W) + 0.5]
def get_init_inputs():
    return []
"""

# sum/max/min over the leading axis of [B, 16, D] tiles (N = 40: a tail of 8 rows), the mean of a
# whole rank-3 tile, and on rank 4 a sum over axis 1 (a fold in unstack's second round) and a
# product over axis 0 of [2, C, H, W] tiles (P = 5: a leading tail of 1)
_FOLD = """kernel fold(x: gm f32[B, N, D], q: gm f32[P, C, H, W]) -> (
        s: gm f32[N, D], mx: gm f32[N, D], mn: gm f32[N], tot: gm f32[], qs: gm f32[P, H, W],
        qp: gm f32[C, H, W]):
    for j in parallel(cdiv(N, 16)):
        n = j * 16
        t = load(x[:, n:n + 16, :])
        store(s[n:n + 16, :], sum(t * 2.0, axis=0) + 1.0)
        store(mx[n:n + 16, :], max(t, axis=0))
        store(mn[n:n + 16], mean(min(t, axis=0), axis=1))
    for i in parallel(1):
        store(tot, mean(load(x[:, :, :])))
    for i in parallel(cdiv(P, 2)):
        p = i * 2
        store(qs[p:p + 2, :, :], sum(load(q[p:p + 2, :, :, :]), axis=1))
    for c in parallel(C):
        store(qp[c, :, :], prod(load(q[:, c, :, :]), axis=0))
"""


def test_a_reduction_over_the_leading_axis_folds_the_slices_in_the_loop(tmp_path):
    run = _up_to("unstack", _FOLD, _task(tmp_path, _FOLD_OP))
    after = run.final.text
    # the first index is peeled (it starts the fold), the loop combines the next ones, and what
    # uses the result runs after the loop
    first = after.index("for _lead1 in range(1):")
    loop = after.index("for _lead0 in range(1, B):")
    assert first < loop < after.index("store(s[n:n + 16, :]")
    assert "_t2 = _t2 + _t1" in after or "_t1 = _t1 + _t0" in after
    assert "maximum(" in after and "minimum(" in after
    # the mean of a whole tile: the mean of each slice, added up, over the slice count
    assert re.search(r"_f\d+ = mean\(", after) and re.search(r"(_t\d+) = \1 / B", after)
    assert any("reducing over it into" in n for n in run.final.notes)


def test_folds_match_torch_on_the_simulator_with_tails_at_both_shape_sets(tmp_path):
    from compiled import compile_verified
    compile_verified(tmp_path, _FOLD, _FOLD_OP, trials=2)


@pytest.mark.parametrize("y, value, forward, refused", [
    ("f32[B, N, D]", "t - sum(t, axis=0)", "x - x.sum(0)",
     "combines a reduction over the leading axis with the tiles it reduces"),
    ("f32[B, N, D]", "t - t + sum(t, axis=0, keepdims=True)", "x - x + x.sum(0, keepdim=True)",
     "with keepdims=True (write keepdims=False"),
    ("i64[N, D]", "argmax(t, axis=0)", "x.argmax(0)", "applies `argmax` over its leading axis or the whole tile"),
])
def test_what_a_fold_cannot_do_is_refused_at_the_writers_line(tmp_path, y, value, forward, refused):
    op = _BIAS_OP.replace("torch.relu(x * w) + bb", forward)
    region = "y[:, j * 8:j * 8 + 8, :]" if y.startswith("f32") else "y[j * 8:j * 8 + 8, :]"
    kernel = (f"kernel k(x: gm f32[B, N, D], w: gm f32[N, D], bb: gm f32[B, 1, D]) -> (y: gm {y}):\n"
              "    for j in parallel(cdiv(N, 8)):\n"
              "        t = load(x[:, j * 8:j * 8 + 8, :])\n"
              f"        store({region}, {value})\n")
    text = _refusal(tmp_path, "unstack", kernel, op)
    assert "pass 'unstack'" in text and refused in text and "k.dsl:4:" in text, text


def test_a_fold_of_rank_4_tiles_peels_the_rank_3_loads_the_next_round_unstacks(tmp_path):
    # the whole-tile sum of a rank-4 product with a rank-3 operand: round 1 keeps the rank-3 load in
    # its loop for round 2, so the peeled first index needs it too (it was left out: 'u' undefined)
    from compiled import compile_verified
    kernel = """
kernel fold4(x: gm f32[P, C, H, W], s: gm f32[C, H, W]) -> (tot: gm f32[]):
    for i in parallel(1):
        t = load(x[:, :, :, :])
        u = load(s[:, :, :])
        store(tot, sum(t * u))
"""
    op = _FOLD_OP.replace("def forward(self, x, q):", "def forward(self, x, s):").replace(
        """        return ((x * 2.0).sum(0) + 1.0, x.max(0).values, x.min(0).values.mean(1), x.mean(),
                q.sum(1), q.prod(0))""", "        return (x * s).sum()").replace(
        "return [torch.randn(B, N, D), torch.rand(P, C, H, W) + 0.5]", "return [torch.randn(P, C, H, W), torch.randn(C, H, W)]")
    assert "(x * s).sum()" in op and "torch.randn(C, H, W)" in op
    compile_verified(tmp_path, kernel, op, trials=2)
