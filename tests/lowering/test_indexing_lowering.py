"""Indexing forms lowered to AscendC and run on the simulator against PyTorch (docs/dsl.md
"Indexing"): gather on tiles (AscendC Gather), rows of GM picked and scattered by a one-value
index tile (GetValue + DataCopy, SetAtomicAdd), and an argmax folded with where; every test has
duplicate indices or ties and tail tiles, and runs at the op's shapes and at the second shape set."""
from __future__ import annotations

import pytest

import ascendcraft
from ascendcraft.errors import AscendcraftError, render

from compiled import compile_verified

_OP = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, {args}):
        return {expr}


{consts}


def get_inputs():
    return [{inputs}]


def get_init_inputs():
    return []
"""


def _op(args, expr, consts, inputs):
    return _OP.format(args=args, expr=expr, consts=consts, inputs=inputs)


def test_gather_along_rows_with_duplicates_and_a_tail_tile(tmp_path):
    # 300 indices into 70 columns: duplicates; TK = 128 leaves a 44-index tail; an uneven core split
    compile_verified(tmp_path, """
kernel g(x: gm f32[R, C], idx: gm i64[R, K]) -> (y: gm f32[R, K]):
    const TK = 128
    for r in parallel(R):
        row = load(x[r, :])
        for k in range(0, K, TK):
            store(y[r, k:k + TK], gather(row, load(idx[r, k:k + TK])))
""", _op("x, idx", "torch.take_along_dim(x, idx, dim=1)", "R = 53\nC = 70\nK = 300",
         "torch.randn(R, C), torch.randint(0, C, (R, K))"), trials=2)


def test_gather_along_the_rows_of_2d_tiles_is_a_gather_per_row(tmp_path):
    # [8, C] tiles (R = 37: a tail of 5 rows) by [8, K] index tiles; the f16 result's rows are 16-element
    # blocks where the i32 offsets' are 8: each row lands at its own pitch
    k = compile_verified(tmp_path, """
kernel g2(x: gm f32[R, C], idx: gm i64[R, K], h: gm f16[R, C]) -> (y: gm f32[R, K], z: gm f16[R, K2]):
    const TR = 8
    for i in parallel(cdiv(R, TR)):
        r = i * TR
        ix = load(idx[r:r + TR, :])
        store(y[r:r + TR, :], gather(load(x[r:r + TR, :]), ix, axis=1))
        store(z[r:r + TR, :], gather(load(h[r:r + TR, :]), load(idx[r:r + TR, 0:K2])))
""", _op("x, idx, h", "torch.take_along_dim(x, idx, dim=1), torch.gather(h, 1, idx[:, :K2])",
         "R = 37\nC = 300\nK = 50\nK2 = 20", "torch.randn(R, C), torch.randint(0, C, (R, K)), torch.randn(R, C).half()"),
        trials=2)
    assert "for (int64_t r_ = 0; r_ <" in k.lowered.spec.kernel_source and "AscendC::Gather(" in k.lowered.spec.kernel_source


def test_gathered_rows_narrower_than_their_pitch_feed_element_wise_ops(tmp_path):
    # K = 50 columns in rows of 56: an element-wise op over two gathered [8, 50] tiles covers the gaps
    # between rows, which the per-row Gathers do not write (an uninitialised read before they were zeroed)
    compile_verified(tmp_path, """
kernel g3(x: gm f32[R, C], idx: gm i64[R, K]) -> (y: gm f32[R, K]):
    const TR = 8
    for i in parallel(cdiv(R, TR)):
        r = i * TR
        t = load(x[r:r + TR, :])
        ix = cast(load(idx[r:r + TR, :]), i32)
        a = gather(t, ix, axis=1)
        b = gather(t, minimum(ix + 1, C - 1), axis=1)
        store(y[r:r + TR, :], a + (b - a) * 0.25)
""", _op("x, idx", "(lambda a, b: a + (b - a) * 0.25)(torch.take_along_dim(x, idx, dim=1), "
                   "torch.take_along_dim(x, (idx + 1).clamp(max=C - 1), dim=1))",
         "R = 37\nC = 300\nK = 50", "torch.randn(R, C), torch.randint(0, C, (R, K))"), trials=2)


def test_index_select_of_columns_gathers_each_row_by_one_index_tile(tmp_path):
    # index_select(dim=1) with a 1-D index: the index tile is loaded once per core, each row gathered by it
    compile_verified(tmp_path, """
kernel s(x: gm f32[R, C], idx: gm i64[K]) -> (y: gm f32[R, K]):
    for c in parallel(CORES):
        ix = load(idx)
        for r in range(c * R // CORES, (c + 1) * R // CORES):
            store(y[r, :], gather(load(x[r, :]), ix))
""", _op("x, idx", "torch.index_select(x, 1, idx)", "R = 61\nC = 200\nK = 333",
         "torch.randn(R, C), torch.randint(0, C, (K,))"), trials=2)


def test_embedding_rows_and_index_add_with_duplicates_across_cores(tmp_path):
    # y = emb[ids] (rows picked by a one-value index tile) and z = acc.index_add(0, ids, w) (atomic_add:
    # 90 ids over 13 rows repeat, and repeated ids sit on different cores)
    compile_verified(tmp_path, """
kernel e(emb: gm f32[V, D], ids: gm i64[K], acc: gm f32[V, D], w: gm f32[K, D]) -> (y: gm f32[K, D], z: gm f32[V, D]):
    const T = 256
    for v in parallel(V):
        for j in range(0, D, T):
            store(z[v, j:j + T], load(acc[v, j:j + T]))
    for k in parallel(K):
        r = load(ids[k])
        for j in range(0, D, T):
            store(y[k, j:j + T], load(emb[r, j:j + T]))
            atomic_add(z[r, j:j + T], load(w[k, j:j + T]))
""", _op("emb, ids, acc, w", "torch.nn.functional.embedding(ids, emb), acc.index_add(0, ids, w)",
         "V = 13\nD = 300\nK = 90", "torch.randn(V, D), torch.randint(0, V, (K,)), torch.randn(V, D), "
         "torch.randn(K, D)"), trials=2)


def test_elements_of_an_index_tile_address_gm_rows_and_bound_loops(tmp_path):
    # a block of ids loaded once, then each element names a GM row (atomic_add with repeats across
    # cores) and, as an element of a 2-D tile, a row to copy: scalars read with GetValue
    compile_verified(tmp_path, """
kernel ia(x: gm f32[R, C], ids: gm i64[K], w: gm f32[K, C], pairs: gm i32[P, 2]) -> (y: gm f32[R, C], z: gm f32[P, C]):
    const T = 128
    const KB = 8
    for r in parallel(R):
        store(y[r, :], load(x[r, :]))
    for c in parallel(cdiv(K, KB)):
        k0 = c * KB
        ixt = load(ids[k0:k0 + KB])
        for k in range(k0, minimum(k0 + KB, K)):
            for j in range(0, C, T):
                atomic_add(y[ixt[k - k0], j:j + T], load(w[k, j:j + T]))
    for p in parallel(P):
        pr = load(pairs[p:p + 1, :])
        store(z[p, :], load(x[pr[0, 1], :]))
""", _op("x, ids, w, pairs", "x.index_add(0, ids, w), x[pairs[:, 1].long()]", "R = 40\nC = 300\nK = 57\nP = 9",
         "torch.randn(R, C), torch.randint(0, R, (K,)), torch.randn(K, C), torch.randint(0, R, (P, 2), "
         "dtype=torch.int32)"), trials=2)


def test_argmin_folded_with_where_keeps_the_first_of_ties(tmp_path):
    # few distinct values: ties in every column; the running index is i32 (Select), cast to int64 at the end
    compile_verified(tmp_path, """
kernel a(x: gm f32[B, N, M]) -> (y: gm i64[B, M]):
    const TM = 512
    for b, mb in parallel(B, cdiv(M, TM)):
        m = mb * TM
        bv = load(x[b, 0, m:m + TM])
        bi = cast(where(bv > bv, bv, 0.0), i32)
        for n in range(1, N):
            v = load(x[b, n, m:m + TM])
            better = v < bv
            bi = where(better, n, bi)
            bv = where(better, v, bv)
        store(y[b, m:m + TM], cast(bi, i64))
""", _op("x", "torch.argmin(x, dim=1)", "B = 3\nN = 19\nM = 600",
         "torch.randint(0, 4, (B, N, M)).float()"), trials=2)


# ArgMaxRows/ArgMinRows on [N, TM] blocks of each image, stored as int64 directly
_ARG_ROWS = """kernel a(x: gm f32[B, N, M]) -> (y: gm i64[B, M], z: gm i64[B, M]):
    const TM = 256
    for b, mb in parallel(B, cdiv(M, TM)):
        m = mb * TM
        t = load(x[b, :, m:m + TM])
        store(y[b, m:m + TM], argmax(t, axis=0))
        store(z[b, m:m + TM], argmin(t, axis=0))
"""


def test_argmax_and_argmin_along_axis_0_keep_the_first_of_ties(tmp_path):
    # ArgMaxRows/ArgMinRows on [N, TM] blocks with a 88-column tail, stored as int64 directly; ties everywhere
    compile_verified(tmp_path, _ARG_ROWS, _op("x", "torch.argmax(x, dim=1), torch.argmin(x, dim=1)", "B = 3\nN = 19\nM = 600",
         "torch.randint(0, 4, (B, N, M)).float()"), trials=2)


def test_argmax_and_argmin_along_axis_0_take_the_first_nan_as_torch_does(tmp_path):
    """ArgMaxRows/ArgMinRows with NaN, infinities and ties, in a 256-column tile (its rows compared in
    place) and a 44-column tail (copies): a NaN wins over any number, the first NaN over later ones,
    whatever Max/Min do with NaN."""
    import torch
    (tmp_path / "k.dsl").write_text(_ARG_ROWS)
    (tmp_path / "op.py").write_text(_op("x", "torch.argmax(x, dim=1), torch.argmin(x, dim=1)", "B = 2\nN = 8\nM = 300",
                                        "torch.randn(B, N, M)"))
    k = ascendcraft.compile(tmp_path / "k.dsl", tmp_path / "op.py", trials=1)
    nan, inf = float("nan"), float("inf")
    x = torch.randn(2, 8, 300)
    for col in (5, 290):                        # in the aligned tile and in the tail
        x[0, 2, col], x[0, 6, col] = nan, 100.0     # a NaN, then a larger number: the NaN
        x[0, 0, col + 1], x[0, 3, col + 1] = nan, nan   # two NaNs: the first
        x[1, 7, col] = nan                      # a NaN in the last row
        x[1, :, col + 1] = 3.0                  # all equal: 0
        x[1, 4, col + 2], x[1, 5, col + 2] = inf, inf   # tied infinities: the first for argmax
        x[1, 1, col + 3], x[1, 6, col + 3] = -inf, -inf
    y, z = k(x)
    assert torch.equal(y, torch.argmax(x, dim=1)) and torch.equal(z, torch.argmin(x, dim=1))


def test_scatter_add_and_scatter_of_rows_with_repeated_indices(tmp_path):
    # 700 indices into 300 columns per row over three tiles (a 188-index tail): repeats add up / the last stays
    compile_verified(tmp_path, """
kernel s(x: gm f32[R, C], idx: gm i64[R, K], u: gm f32[R, K]) -> (y: gm f32[R, C], z: gm f32[R, C]):
    const TK = 256
    for r in parallel(R):
        t = load(x[r, :])
        s = t
        for k in range(0, K, TK):
            i = load(idx[r, k:k + TK])
            v = load(u[r, k:k + TK])
            t = scatter_add(t, i, v)
            s = scatter(s, i, v)
        store(y[r, :], t)
        store(z[r, :], s)
""", _op("x, idx, u", "x.scatter_add(1, idx, u), x.scatter(1, idx, u)", "R = 37\nC = 300\nK = 700",
         "torch.randn(R, C), torch.randint(0, C, (R, K)), torch.randn(R, K)"), trials=2)


@pytest.mark.parametrize("out, body, expr, fragment", [
    ("i64", "        store(y[r], argmax(load(x[r, :])))\n", "torch.argmax(x, 1)", "argmax"),
    ("f32", "        store(y[r], sum(gather(load(x), load(idx), axis=0)[r]))\n", "torch.gather(x, 0, idx).sum(1)",
     "gather"),
])
def test_forms_that_do_not_lower_are_refused_at_their_line(tmp_path, out, body, expr, fragment):
    (tmp_path / "k.dsl").write_text(f"kernel k(x: gm f32[R, C], idx: gm i64[R, C]) -> (y: gm {out}[R]):\n"
                                    "    for r in parallel(R):\n" + body)
    (tmp_path / "op.py").write_text(_op("x, idx", expr, "R = 16\nC = 16", "torch.randn(R, C), torch.randint(0, min(R, C), (R, C))"))
    with pytest.raises(AscendcraftError) as info:
        ascendcraft.compile(tmp_path / "k.dsl", tmp_path / "op.py", trials=1)
    text = render(info.value)
    assert f"no AscendC selection rule for `{fragment}(" in text and "k.dsl:3:" in text, text


def test_index_copy_and_inplace_update_examples_are_exact_for_inf_and_nan(tmp_path):
    # the examples store each index's last row instead of adding flagged rows (inf * 0 was NaN); the
    # verifier draws no inf or NaN, so this pins it: repeated indices, inf and NaN in both inputs
    import torch
    from pathlib import Path
    root = Path(__file__).resolve().parents[2] / "examples" / "index"
    for name, rows, n_idx in (("index_copy", 45, 67), ("inplace_update", 53, 77)):
        k = ascendcraft.compile(root / name / "kernel.dsl", root / name / "op.py", trials=1)
        g = torch.Generator().manual_seed(5)
        x, src = torch.randn(rows, 1100, generator=g), torch.randn(n_idx, 1100, generator=g)
        src[::3, 5], src[1::3, 7], x[:, 9] = float("inf"), float("nan"), float("-inf")
        idx = torch.randint(0, rows, (n_idx,), generator=g)
        want = x.clone()
        for i in range(n_idx):       # in index order: the last of a repeated index stays
            want[idx[i]] = src[i]
        got = k(x, idx, src)
        assert torch.equal(got.isnan(), want.isnan()) and torch.equal(got[~got.isnan()], want[~want.isnan()]), name


def test_a_count_read_from_gm_bounds_a_loop_and_a_step_may_not(tmp_path):
    # range(load(n[r])): the count is a one-value tile read on the scalar unit (linearize names it
    # before the loop, collapse leaves the loop alone); 0 trips included
    compile_verified(tmp_path, """
kernel rep(x: gm f32[R, C], n: gm i32[R]) -> (y: gm f32[R, C]):
    for r in parallel(R):
        t = load(x[r, :])
        acc = t * 0.0
        for w in range(load(n[r])):
            for j in range(1):
                acc = acc + t
        store(y[r, :], acc)
""", _op("x, n", "x * n[:, None].float()", "R = 9\nC = 70", "torch.randn(R, C), torch.randint(0, 4, (R,), dtype=torch.int32)"),
        trials=2)
    (tmp_path / "k.dsl").write_text("kernel rep(x: gm f32[R, C], n: gm i32[R]) -> (y: gm f32[R, C]):\n"
                                    "    for r in parallel(R):\n"
                                    "        for j in range(0, C, load(n[r])):\n"
                                    "            store(y[r, j:j + 1], load(x[r, j:j + 1]))\n")
    with pytest.raises(AscendcraftError) as info:
        ascendcraft.compile(tmp_path / "k.dsl", tmp_path / "op.py", trials=1)
    assert "range step must be an integer scalar" in render(info.value) and "k.dsl:3:" in render(info.value)
