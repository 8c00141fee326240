"""Interpreter vs torch: every op kind, dtype semantics, parallel phases, run-time rules."""
import numpy as np
import pytest
import torch

from ascendcraft import dtypes as D
from ascendcraft.chips import load_chip
from ascendcraft.dsl.checker import Binding, check
from ascendcraft.dsl.interpreter import interpret
from ascendcraft.dsl.parser import parse
from ascendcraft.errors import InterpreterError

CHIP = load_chip("910B2")
RNG = np.random.default_rng(0)


def run(src, dims, arrays, attrs=None, out=None):
    k = parse(src, "k.dsl")
    ck = check(k, Binding(dims, attrs or {}), CHIP)
    gm = dict(arrays)
    for p in k.outputs:
        shape = ck.params[p.name].shape
        dt = D.NUMPY[p.type.dtype]
        gm[p.name] = np.full(shape, np.nan, dt) if p.type.dtype in D.FLOATS else np.zeros(shape, dt)
    interpret(ck, gm)
    return [gm[p.name] for p in k.outputs]


ROWWISE = """kernel k(x: gm {dt}[R, N]) -> (y: gm {odt}[R, N]):
    const T = 96
    for r in parallel(R):
        for j in range(0, N, T):
            t = load(x[r, j:j + T])
            store(y[r, j:j + T], {expr})
"""

UNARY = {
    "exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "reciprocal": torch.reciprocal,
    "tanh": torch.tanh, "sigmoid": torch.sigmoid, "erf": torch.erf, "abs": torch.abs, "relu": torch.relu,
    "floor": torch.floor, "ceil": torch.ceil,
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_ops_match_torch_with_tails_and_uneven_cores(name):
    x = (RNG.random((53, 250), dtype=np.float32) * 4 - 1).astype(np.float32)
    if name in ("log", "sqrt", "rsqrt"):
        x = np.abs(x) + 0.1
    (y,) = run(ROWWISE.format(dt="f32", odt="f32", expr=f"{name}(t)"), {"R": 53, "N": 250}, {"x": x})
    np.testing.assert_allclose(y, UNARY[name](torch.from_numpy(x)).numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("expr, ref", [
    ("t * 2.0 - 1.0", lambda x: x * 2 - 1),
    ("clamp(t, 0.25, 0.75)", lambda x: torch.clamp(x, 0.25, 0.75)),
    ("where(t > 0.5, t, t * 0.01)", lambda x: torch.where(x > 0.5, x, x * 0.01)),
    ("t ** 2.0 + minimum(t, 0.3) / maximum(t, 0.1)", lambda x: x ** 2 + torch.minimum(x, torch.tensor(0.3)) /
     torch.maximum(x, torch.tensor(0.1))),
    ("0.5 * t * (1.0 + erf(t * 0.7071067811865476))", torch.nn.functional.gelu),
])
def test_expressions_match_torch(expr, ref):
    x = RNG.random((7, 300), dtype=np.float32)
    (y,) = run(ROWWISE.format(dt="f32", odt="f32", expr=expr), {"R": 7, "N": 300}, {"x": x})
    np.testing.assert_allclose(y, ref(torch.from_numpy(x)).numpy(), rtol=1e-5, atol=1e-6)


def test_f16_arithmetic_happens_in_f16():
    x = RNG.random((4, 200)).astype(np.float16)
    (y,) = run(ROWWISE.format(dt="f16", odt="f16", expr="t * t + t / 3.0"), {"R": 4, "N": 200}, {"x": x})
    t = torch.from_numpy(x)
    np.testing.assert_array_equal(y, (t * t + t / 3.0).numpy())  # torch computes f16 op by op too


def test_bf16_results_are_bf16_values():
    x = D.round_bf16(RNG.random((4, 200), dtype=np.float32))
    (y,) = run(ROWWISE.format(dt="bf16", odt="bf16", expr="exp(t) * 3.0"), {"R": 4, "N": 200}, {"x": x})
    assert np.array_equal(y, D.round_bf16(y))
    ref = (torch.exp(torch.from_numpy(x).bfloat16()) * 3.0).float().numpy()
    np.testing.assert_allclose(y, ref, rtol=1e-2)


def test_round_bf16_is_round_to_nearest_even():
    vals = np.array([1.0, 1.00390625, 1.01171875, 3.4e38, -2.5e-3], dtype=np.float32)
    ref = torch.from_numpy(vals).bfloat16().float().numpy()
    np.testing.assert_array_equal(D.round_bf16(vals), ref)


@pytest.mark.parametrize("op, axis, keep", [("sum", 1, False), ("max", 0, True), ("min", None, False),
                                            ("mean", -1, True), ("prod", 1, False)])
def test_reductions(op, axis, keep):
    x = RNG.random((6, 40), dtype=np.float32) + 0.5
    ax = "" if axis is None else f", axis={axis}"
    src = f"""kernel k(x: gm f32[R, N]) -> (y: gm f32[{'' if axis is None else 'A, B' if keep else 'A'}]):
    t = load(x)
    store(y, {op}(t{ax}, keepdims={keep}))
"""
    tx = torch.from_numpy(x)
    fn = {"sum": torch.sum, "max": torch.amax, "min": torch.amin, "mean": torch.mean, "prod": torch.prod}[op]
    ref = (fn(tx) if axis is None else fn(tx, axis, keepdim=keep) if op != "prod" else
           torch.prod(tx, axis, keepdim=keep)).numpy()
    dims = {"R": 6, "N": 40}
    if axis is not None:
        dims.update({"A": ref.shape[0]} if not keep else {"A": ref.shape[0], "B": ref.shape[1]})
    (y,) = run(src, dims, {"x": x})
    np.testing.assert_allclose(y, ref, rtol=1e-5)


@pytest.mark.parametrize("reverse, exclusive", [(False, False), (True, False), (False, True), (True, True)])
def test_cumsum_forms(reverse, exclusive):
    x = RNG.random((5, 77), dtype=np.float32)
    src = ROWWISE.format(dt="f32", odt="f32", expr=f"cumsum(t, reverse={reverse}, exclusive={exclusive})")
    src = src.replace("const T = 96", "const T = 1000")
    (y,) = run(src, {"R": 5, "N": 77}, {"x": x})
    t = torch.from_numpy(x)
    if reverse:
        t = t.flip(1)
    ref = torch.cumsum(t, 1)
    if exclusive:
        ref = ref - t
    if reverse:
        ref = ref.flip(1)
    np.testing.assert_allclose(y, ref.numpy(), rtol=1e-5, atol=1e-6)


def test_cumsum_across_tiles_with_a_carry():
    src = """kernel k(x: gm f32[R, N]) -> (y: gm f32[R, N]):
    const T = 64
    for r in parallel(R):
        carry = 0.0
        for j in range(0, N, T):
            t = load(x[r, j:j + T])
            store(y[r, j:j + T], cumsum(t) + carry)
            carry = carry + sum(t)
"""
    x = RNG.random((9, 301), dtype=np.float32)
    (y,) = run(src, {"R": 9, "N": 301}, {"x": x})
    np.testing.assert_allclose(y, np.cumsum(x, 1), rtol=1e-5)


@pytest.mark.parametrize("k, s, p, d", [(3, 2, 1, 1), (4, 1, 2, 2), (2, 2, 0, 3)])
def test_window_max_matches_max_pool2d(k, s, p, d):
    x = RNG.random((2, 3, 19, 23), dtype=np.float32)
    ref = torch.nn.functional.max_pool2d(torch.from_numpy(x), k, s, p, d).numpy()
    src = f"""kernel k(x: gm f32[N, C, H, W]) -> (y: gm f32[N, C, HO, WO]):
    for n, c in parallel(N, C):
        store(y[n, c], window_max(load(x[n, c]), kernel=({k}, {k}), stride={s}, padding={p}, dilation={d}))
"""
    (y,) = run(src, {"N": 2, "C": 3, "H": 19, "W": 23, "HO": ref.shape[2], "WO": ref.shape[3]}, {"x": x})
    np.testing.assert_array_equal(y, ref)


def test_window_avg_matches_avg_pool1d():
    x = RNG.random((4, 100), dtype=np.float32)
    ref = torch.nn.functional.avg_pool1d(torch.from_numpy(x)[None], 4, 2, 1)[0].numpy()
    src = """kernel k(x: gm f32[C, L]) -> (y: gm f32[C, LO]):
    for c in parallel(C):
        store(y[c, :], window_avg(load(x[c, :]), kernel=4, stride=2, padding=1))
"""
    (y,) = run(src, {"C": 4, "L": 100, "LO": ref.shape[1]}, {"x": x})
    np.testing.assert_allclose(y, ref, rtol=1e-6)


def test_tiled_max_pool_with_padded_halo_loads():
    src = open(__file__.replace("test_interpreter.py", "kernels/maxpool2d.dsl")).read()
    x = RNG.random((2, 3, 37, 29), dtype=np.float32)
    ref = torch.nn.functional.max_pool2d(torch.from_numpy(x), 4, 1, 1).numpy()
    (y,) = run(src, {"N": 2, "C": 3, "H": 37, "W": 29, "HO": ref.shape[2], "WO": ref.shape[3]}, {"x": x})
    np.testing.assert_array_equal(y, ref)


def test_matmul_accumulates_over_k_tiles():
    src = """kernel mm(a: gm f16[M, K], b: gm f16[K, N]) -> (c: gm f32[M, N]):
    const TM = 32
    const TK = 16
    for i in parallel(cdiv(M, TM)):
        acc = zeros((TM, N), f32, space=l0c)
        for k in range(0, K, TK):
            p = load(a[i * TM:i * TM + TM, k:k + TK], pad=0.0, space=l1)
            q = load(b[k:k + TK, :], pad=0.0, space=l1)
            acc = acc + matmul(p, q)
        store(c[i * TM:i * TM + TM, :], acc)
"""
    a = RNG.random((70, 40)).astype(np.float16)
    b = RNG.random((40, 24)).astype(np.float16)
    (c,) = run(src, {"M": 70, "K": 40, "N": 24}, {"a": a, "b": b})
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5)
    ck = check(parse(src), Binding({"M": 70, "K": 40, "N": 24}, {}), CHIP)
    assert ck.uses_cube and ck.cores == 24


def test_casts_follow_torch():
    x = np.array([[-2.5, -1.5, -0.5, 0.5, 1.5, 2.7, 1e10, -1e10]], dtype=np.float32)
    src = """kernel k(x: gm f32[R, N]) -> (a: gm i32[R, N], b: gm i32[R, N], c: gm f16[R, N], d: gm bool[R, N]):
    t = load(x)
    store(a, cast(t, i32))
    store(b, cast(t, i32, round="rint"))
    store(c, cast(t, f16))
    store(d, cast(t, bool))
"""
    a, b, c, d = run(src, {"R": 1, "N": 8}, {"x": x})
    tx = torch.from_numpy(x)
    np.testing.assert_array_equal(a[0, :6], tx.to(torch.int32).numpy()[0, :6])
    assert a[0, 6] == np.iinfo(np.int32).max and a[0, 7] == np.iinfo(np.int32).min  # saturates
    np.testing.assert_array_equal(b[0, :6], torch.round(tx).to(torch.int32).numpy()[0, :6])
    np.testing.assert_array_equal(c, tx.half().numpy())
    np.testing.assert_array_equal(d, (tx != 0).numpy())


def test_integer_and_bool_tiles():
    src = """kernel k(x: gm i32[N], m: gm bool[N]) -> (y: gm i32[N]):
    t = load(x)
    keep = load(m) & (t % 3 != 0)
    store(y, where(keep, t // 2, -1))
"""
    x = np.arange(-10, 30, dtype=np.int32)
    m = RNG.random(40) > 0.3
    (y,) = run(src, {"N": 40}, {"x": x, "m": m})
    np.testing.assert_array_equal(y, np.where(m & (x % 3 != 0), x // 2, -1))


def test_race_between_cores_is_reported():
    src = """kernel k(x: gm f32[R, N]) -> (y: gm f32[N]):
    for r in parallel(R):
        store(y[:], load(x[r, :]))
"""
    with pytest.raises(InterpreterError) as info:
        run(src, {"R": 5, "N": 8}, {"x": np.ones((5, 8), np.float32)})
    assert info.value.kind == "race" and "core 1 writes elements of y that core 0 wrote" in str(info.value)


def test_atomic_add_from_all_cores():
    src = """kernel k(x: gm f32[R, N]) -> (y: gm f32[N]):
    store(y, 0.0)
    for r in parallel(R):
        atomic_add(y[:], load(x[r, :]))
"""
    x = RNG.random((60, 8), dtype=np.float32)
    (y,) = run(src, {"R": 60, "N": 8}, {"x": x})
    np.testing.assert_allclose(y, x.sum(0), rtol=1e-5)


def test_unused_parallel_share_is_balanced():
    src = """kernel k(x: gm f32[R]) -> (y: gm i32[R]):
    for r in parallel(R):
        store(y[r], r)
"""
    (y,) = run(src, {"R": 53}, {"x": np.zeros(53, np.float32)})
    np.testing.assert_array_equal(y, np.arange(53))


def test_run_time_ub_overflow_names_the_statement():
    # Statically each tile is bounded by N; at run time the tail tile is checked with its exact size.
    src = """kernel k(x: gm f32[N]) -> (y: gm f32[N]):
    t = load(x)
    u = t * 2.0
    store(y, u + t)
"""
    ck = check(parse(src, "k.dsl"), Binding({"N": 16000}, {}), CHIP)
    x = np.ones(20000, np.float32)
    with pytest.raises(InterpreterError) as info:
        interpret(ck, {"x": x, "y": np.zeros(20000, np.float32)})
    assert "shape" in str(info.value)  # arrays must match the checked shapes
    big = check(parse(src, "k.dsl"), Binding({"N": 16000}, {}), CHIP)
    from ascendcraft.dsl import interpreter as I
    interp = I.Interpreter(big)
    interp.capacity[0] = 100_000   # a smaller UB than the checker assumed: the run-time check must fire
    with pytest.raises(InterpreterError) as info:
        interp.run({"x": np.ones(16000, np.float32), "y": np.zeros(16000, np.float32)})
    assert info.value.kind == "memory error" and "UB overflow at run time" in str(info.value)
    assert info.value.span.line == 3


def test_unknown_node_fails_loudly():
    from dataclasses import dataclass

    from ascendcraft.dsl import ast as A
    from ascendcraft.dsl.interpreter import Interpreter

    @dataclass(frozen=True)
    class Mystery:
        span: object = None
    k = parse("kernel k(x: gm f32[N]) -> (y: gm f32[N]):\n    pass\n")
    ck = check(k, Binding({"N": 4}, {}), CHIP)
    ck.kernel = A.Kernel(k.name, k.inputs, k.outputs, (Mystery(),))
    with pytest.raises(InterpreterError) as info:   # rejected when compiled, before anything runs
        Interpreter(ck)
    assert info.value.kind == "internal error" and "no rule for statement Mystery" in str(info.value)


def test_run_time_shape_mismatch_is_a_shape_error():
    # j:j + j has no constant length, so only the run time sees [7, 0] meet [7, 7].
    src = """kernel k(p: gm f32[B, N]) -> (y: gm f32[B, N]):
    for j in range(0, N, 7):
        d = load(p[0:7, j:j + j]) - load(p[0:7, j:j + 7])
        store(y[0:7, j:j + 7], d)
"""
    with pytest.raises(InterpreterError) as info:
        run(src, {"B": 7, "N": 7}, {"p": np.ones((7, 7), np.float32)})
    err = info.value
    assert err.kind == "shape error" and err.span.line == 3
    assert "sub: tiles of shapes [7, 0] and [7, 7] do not broadcast at run time" in str(err)


def test_a_streamed_product_stored_as_it_is_holds_no_ub_at_run_time():
    """The cube lowering stores it from the cube to GM in blocks (footprint.stored_product): a product
    of 8 MiB runs, and matches NumPy."""
    src = """kernel k(a: gm f32[M, K], b: gm f32[K, N]) -> (c: gm f32[M, N]):
    for i in parallel(1):
        store(c[:, :], matmul(a[:, :], b[:, :]))
"""
    shapes = {"M": 32, "K": 16, "N": 65536}
    rng = np.random.default_rng(0)
    a = rng.standard_normal((32, 16)).astype(np.float32)
    b = rng.standard_normal((16, 65536)).astype(np.float32)
    (c,) = run(src, shapes, {"a": a, "b": b})
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)
