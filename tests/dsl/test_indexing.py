"""Indexing forms (docs/dsl.md "Indexing"): argmax/argmin, gather on tiles, rows of GM picked or
scattered by a one-value integer tile. Parser round trip, located checker errors, the interpreter
against PyTorch (ties, duplicates, tails) and the located out-of-range error."""
import numpy as np
import pytest
import torch

from ascendcraft import dtypes as D
from ascendcraft.chips import load_chip
from ascendcraft.dsl.checker import Binding, check
from ascendcraft.dsl.interpreter import interpret
from ascendcraft.dsl.parser import parse
from ascendcraft.dsl.printer import print_kernel
from ascendcraft.errors import DSLError, InterpreterError

CHIP = load_chip("910B2")
RNG = np.random.default_rng(13)


def run(src, dims, arrays):
    k = parse(src, "k.dsl")
    ck = check(k, Binding(dims, {}), CHIP)
    gm = dict(arrays)
    for p in k.outputs:
        shape, dt = ck.params[p.name].shape, D.NUMPY[p.type.dtype]
        gm[p.name] = np.full(shape, np.nan, dt) if p.type.dtype in D.FLOATS else np.full(shape, -7, dt)
    interpret(ck, gm)
    return [gm[p.name] for p in k.outputs]


def rejects(src, dims, fragment, line):
    with pytest.raises(DSLError) as err:
        check(parse(src, "k.dsl"), Binding(dims, {}), CHIP)
    assert fragment in err.value.message, err.value.message
    assert err.value.span is not None and err.value.span.line == line, err.value.span
    return err.value


# argmax over the middle axis of x[B, N, M], [RN, TM] tiles folded into a running (value, index) pair
ARG_FOLD = """kernel k(x: gm f32[B, N, M]) -> (y: gm i64[B, M]):
    const TM = 48
    const RN = 5
    for b, mb in parallel(B, cdiv(M, TM)):
        m = mb * TM
        t = load(x[b, 0:RN, m:m + TM])
        bv = {red}(t, axis=0)
        bi = {arg}(t, axis=0)
        for n in range(RN, N, RN):
            t = load(x[b, n:n + RN, m:m + TM])
            v = {red}(t, axis=0)
            better = v {cmp} bv
            bi = where(better, {arg}(t, axis=0) + n, bi)
            bv = where(better, v, bv)
        store(y[b, m:m + TM], bi)
"""


@pytest.mark.parametrize("arg, red, cmp, ref", [("argmax", "max", ">", torch.argmax),
                                                ("argmin", "min", "<", torch.argmin)])
def test_arg_reduction_across_tiles_keeps_the_first_of_ties(arg, red, cmp, ref):
    # few distinct values: many ties within a tile and across tiles (N = 23: a 3-row tail tile)
    x = RNG.integers(0, 4, (3, 23, 100)).astype(np.float32)
    (y,) = run(ARG_FOLD.format(arg=arg, red=red, cmp=cmp), {"B": 3, "N": 23, "M": 100}, {"x": x})
    np.testing.assert_array_equal(y, ref(torch.from_numpy(x), dim=1).numpy())


@pytest.mark.parametrize("kw, ref", [("", lambda x: torch.argmax(x.flatten())),
                                     (", axis=-1", lambda x: torch.argmax(x, dim=-1)),
                                     (", axis=1, keepdims=True", lambda x: torch.argmax(x, dim=1, keepdim=True))])
def test_argmax_forms_match_torch_with_nan(kw, ref):
    x = RNG.integers(0, 3, (6, 9)).astype(np.float32)
    x[2, 4] = x[2, 7] = np.nan        # torch: a NaN is the maximum, the first one wins
    shape = "[]" if not kw else "[R, 1]" if "keepdims" in kw else "[R]"
    src = f"""kernel k(x: gm f32[R, C]) -> (y: gm i64{shape}):
    store(y, argmax(load(x){kw}))
"""
    (y,) = run(src, {"R": 6, "C": 9}, {"x": x})
    np.testing.assert_array_equal(y, ref(torch.from_numpy(x)).numpy())


def test_argmin_as_i32_for_index_arithmetic():
    src = """kernel k(x: gm f32[R, C]) -> (y: gm i32[C]):
    store(y, argmin(load(x), axis=0, dtype=i32) + 100)
"""
    x = RNG.integers(0, 3, (7, 20)).astype(np.float32)
    (y,) = run(src, {"R": 7, "C": 20}, {"x": x})
    np.testing.assert_array_equal(y, torch.argmin(torch.from_numpy(x), dim=0).numpy() + 100)


GATHER = """kernel k(x: gm f32[R, C], idx: gm i64[R, K]) -> (y: gm f32[R, K]):
    const TK = 32
    for r in parallel(R):
        row = load(x[r, :])
        for k in range(0, K, TK):
            store(y[r, k:k + TK], gather(row, load(idx[r, k:k + TK])))
"""


def test_gather_is_take_along_dim_with_duplicates_and_tails():
    x = RNG.standard_normal((7, 50)).astype(np.float32)
    idx = RNG.integers(0, 50, (7, 75))          # 75 > 50: duplicates certain; a 11-wide tail tile
    (y,) = run(GATHER, {"R": 7, "C": 50, "K": 75}, {"x": x, "idx": idx})
    np.testing.assert_array_equal(y, torch.take_along_dim(torch.from_numpy(x), torch.from_numpy(idx), 1).numpy())


def test_gather_with_a_1d_index_is_index_select():
    src = """kernel k(x: gm f32[R, C], idx: gm i64[K]) -> (y: gm f32[R, K]):
    store(y, gather(load(x), load(idx), axis=1))
"""
    x = RNG.standard_normal((5, 12)).astype(np.float32)
    idx = np.array([3, 3, 0, 11, 3, 7])
    (y,) = run(src, {"R": 5, "C": 12, "K": 6}, {"x": x, "idx": idx})
    np.testing.assert_array_equal(y, torch.index_select(torch.from_numpy(x), 1, torch.from_numpy(idx)).numpy())


def test_gather_out_of_range_names_the_line_and_the_index():
    x = RNG.standard_normal((7, 50)).astype(np.float32)
    idx = RNG.integers(0, 50, (7, 75))
    idx[4, 40] = 50
    with pytest.raises(InterpreterError) as err:
        run(GATHER, {"R": 7, "C": 50, "K": 75}, {"x": x, "idx": idx})
    assert "index 50" in err.value.message and "extent 50" in err.value.message
    assert err.value.span.line == 6


SCATTER = """kernel k(x: gm f32[R, C], idx: gm i64[R, K], u: gm f32[R, K]) -> (y: gm f32[R, C], z: gm f32[R, C]):
    const TK = 16
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
"""


def test_scatter_add_accumulates_repeats_and_scatter_keeps_the_last():
    # 45 indices into 12 columns per row, over three index tiles (a 13-index tail): repeats within and across tiles
    x = RNG.standard_normal((5, 12)).astype(np.float32)
    idx = RNG.integers(0, 12, (5, 45))
    u = RNG.standard_normal((5, 45)).astype(np.float32)
    y, z = run(SCATTER, {"R": 5, "C": 12, "K": 45}, {"x": x, "idx": idx, "u": u})
    X, I, U = (torch.from_numpy(a) for a in (x, idx, u))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)   # PyTorch's CPU scatter writes in index order on one thread (as verification runs it)
    try:
        add, last = X.scatter_add(1, I, U).numpy(), X.scatter(1, I, U).numpy()
    finally:
        torch.set_num_threads(threads)
    np.testing.assert_allclose(y, add, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(z, last)


def test_scatter_out_of_range_names_the_line_and_the_index():
    idx = RNG.integers(0, 12, (5, 45))
    idx[3, 20] = -1
    with pytest.raises(InterpreterError) as err:
        run(SCATTER, {"R": 5, "C": 12, "K": 45}, {"x": np.zeros((5, 12), np.float32), "idx": idx,
                                                  "u": np.zeros((5, 45), np.float32)})
    assert "index -1" in err.value.message and err.value.span.line == 9


# index_add (dim 0): copy x, then add every source row to the row its index names (atomic_add: two
# cores may hold the same index); duplicate indices accumulate
INDEX_ADD = """kernel k(x: gm f32[R, C], idx: gm i64[K], v: gm f32[K, C]) -> (y: gm f32[R, C]):
    const T = 64
    for r in parallel(R):
        for j in range(0, C, T):
            store(y[r, j:j + T], load(x[r, j:j + T]))
    for k in parallel(K):
        r = load(idx[k])
        for j in range(0, C, T):
            atomic_add(y[r, j:j + T], load(v[k, j:j + T]))
"""


def test_index_add_accumulates_duplicate_rows():
    x = RNG.standard_normal((9, 100)).astype(np.float32)
    idx = RNG.integers(0, 9, (40,))
    v = RNG.standard_normal((40, 100)).astype(np.float32)
    (y,) = run(INDEX_ADD, {"R": 9, "C": 100, "K": 40}, {"x": x, "idx": idx, "v": v})
    ref = torch.from_numpy(x).index_add(0, torch.from_numpy(idx), torch.from_numpy(v)).numpy()
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)


def test_row_scatter_with_duplicates_across_cores_is_a_race():
    # index_copy with a repeated index: PyTorch leaves the winner unspecified; the interpreter does
    # not pick one, it reports the two cores writing one row (race), naming the store
    src = INDEX_ADD.replace("atomic_add(", "store(")
    idx = np.array([1, 4, 1])
    with pytest.raises(InterpreterError) as err:
        run(src, {"R": 9, "C": 100, "K": 3}, {"x": np.zeros((9, 100), np.float32), "idx": idx,
                                               "v": np.ones((3, 100), np.float32)})
    assert err.value.kind == "race" and err.value.span.line == 9


def test_row_index_out_of_range_names_the_line_and_the_index():
    idx = np.array([0, 9, 2])
    with pytest.raises(InterpreterError) as err:
        run(INDEX_ADD, {"R": 9, "C": 100, "K": 3}, {"x": np.zeros((9, 100), np.float32), "idx": idx,
                                                    "v": np.ones((3, 100), np.float32)})
    assert "index 9" in err.value.message and err.value.span.line == 9


def test_masked_fill_is_where():
    src = """kernel k(x: gm f32[R, C], mask: gm bool[R, C]) -> (y: gm f32[R, C]):
    for r in parallel(R):
        store(y[r, :], where(load(mask[r, :]), -inf, load(x[r, :])))
"""
    x = RNG.standard_normal((6, 30)).astype(np.float32)
    mask = RNG.random((6, 30)) < 0.5
    (y,) = run(src, {"R": 6, "C": 30}, {"x": x, "mask": mask})
    np.testing.assert_array_equal(y, torch.from_numpy(x).masked_fill(torch.from_numpy(mask), float("-inf")).numpy())


def test_indexing_forms_round_trip_through_the_printer():
    for src in (ARG_FOLD.format(arg="argmax", red="max", cmp=">"), GATHER, INDEX_ADD, SCATTER):
        k = parse(src, "k.dsl")
        text = print_kernel(k)
        assert parse(text) == k and print_kernel(parse(text)) == text


SIG = "kernel k(x: gm f32[R, C], idx: gm {it}[R, K]) -> (y: gm f32[R, K]):\n"


@pytest.mark.parametrize("it, body, fragment, line", [
    ("f32", "    store(y, gather(load(x), load(idx)))\n", "idx must be an integer tile", 2),
    ("i64", "    store(y[:, 0:4], gather(load(x), load(idx[:, 0:4]), axis=0))\n", "differ on axis 1", 2),
    ("i64", "    store(y, gather(load(x), load(idx)[0, 0]))\n", "idx has rank 0", 2),
    ("i64", "    i = 3\n    store(y, gather(load(x), i))\n", "idx must be an integer tile", 3),
    ("i64", "    store(y, gather(load(x), load(idx), axis=2))\n", "axis 2 is out of range", 2),
    ("i64", "    a = argmax(load(x) > 0.0, axis=0)\n", "needs a numeric tile", 2),
    ("i64", "    a = argmax(load(x)[0, 0], axis=0)\n", "rank >= 1", 2),
    ("i64", "    a = argmax(load(x), axis=0, dtype=f32)\n", "is i64", 2),
    ("i64", "    a = scatter(load(x), load(idx), load(x[:, 0:6]) > 0.0)\n", "v is bool but t is f32", 2),
    ("i64", "    a = scatter_add(load(x), load(idx[:, 0:3]), load(x[:, 0:4]))\n", "need one shape", 2),
    ("f32", "    a = scatter_add(load(x), load(idx), load(x))\n", "idx must be an integer ub tile", 2),
])
def test_checker_errors_are_located(it, body, fragment, line):
    src = SIG.format(it=it) + body
    rejects(src, {"R": 4, "C": 8, "K": 6}, fragment, line)
