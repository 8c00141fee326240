"""Classes of kernels the differential fuzzer found wrong (ascendcraft/fuzz/kernels.py FIXED_BUGS),
lowered, built and run on the simulator against the interpreter, with the inputs that break a
careless lowering: negative values, zeros, +-inf and NaN (scalar-unit functions), tails (tiles
shorter than their static shape), and the host's workspace size for consts in scratch shapes.
"""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from ascendcraft.codegen.spec import KernelSpec
from ascendcraft.codegen.tiling import workspace_size
from ascendcraft.fuzz.differential import FuzzCase, OpDesc, TensorDesc, run_case

# one value of every kind a scalar function must get right (NumPy's meaning, the interpreter's)
_EDGE = [-3.5, -2.5, -1.5, -1.0, -0.5, -0.25, -0.0, 0.0, 0.25, 0.5, 1.0, 1.5, 2.5, 3.7, 100.0, -100.0,
         float("inf"), float("-inf"), float("nan"), 1e-3, -1e-3, 7.0, -7.0, 0.75]


@dataclass(frozen=True)
class Values(TensorDesc):
    """A 1-D f32 input with the given values (in order), instead of random ones."""

    values: tuple = ()

    def torch_expr(self) -> str:
        items = ", ".join("float('nan')" if v != v else f"float('{v}')" for v in self.values)
        return f"torch.tensor([{items}], dtype=torch.float32)"


def _edge_input():
    return Values((len(_EDGE),), "f32", values=tuple(_EDGE))


def _f32(*shape, lo=-1.0, hi=1.0):
    return TensorDesc(tuple(shape), "f32", lo, hi)


def _run(text, inputs, outputs):
    r = run_case(FuzzCase(text.strip("\n") + "\n", OpDesc(tuple(inputs), tuple(outputs))), timeout_s=30)
    assert r.ok, r.report()


# --------------------------------------------------------------------- scalar-unit values (0-d tiles)

_SCALAR_EXPRS = [
    "relu(v)", "tanh(v)", "sigmoid(v)", "erf(v)", "floor(v)", "ceil(v)", "abs(v)", "-v", "clamp(v, -1.0, 2.0)",
    "maximum(v, 0.5)", "minimum(v, 0.5)", "where(v < 0.0, v * 2.0, v + 1.0)",
    "v ** 2", "v ** 3", "v ** -2", "v ** 0", "abs(v) ** 0.5", "abs(v) ** 1.5",
    "cast(cast(v, i32, round=\"floor\"), f32)", "cast(cast(v, i32, round=\"rint\"), f32)",
    "cast(cast(v, i32, round=\"round\"), f32)", "cast(cast(v, i32), f32)", "v - -1.5",
]


@pytest.mark.parametrize("group", [_SCALAR_EXPRS[i:i + 8] for i in range(0, len(_SCALAR_EXPRS), 8)],
                         ids=lambda g: g[0])
def test_scalar_functions_of_one_value_tiles_match_numpy(group):
    outs = ", ".join(f"y{k}: gm f32[N]" for k in range(len(group)))
    body = "\n".join(f"        store(y{k}[i], {e})" for k, e in enumerate(group))
    # float -> int casts of inf/NaN saturate differently across NumPy versions: keep them finite there
    finite = any("cast(" in e for e in group)
    text = f"""
kernel fz(x0: gm f32[N]) -> ({outs}):
    for i in parallel(N):
        v = {"minimum(maximum(load(x0[i]), -1000.0), 1000.0)" if finite else "load(x0[i])"}
{body}
"""
    _run(text, [_edge_input()], [_f32(len(_EDGE))] * len(group))


def test_integer_powers_of_a_run_time_exponent():
    """x ** a with an attribute a: integral a takes any sign of x (repeated squaring on the scalar unit)."""
    text = """
kernel fz(x0: gm f32[N], a: f32 = 3.0) -> (y: gm f32[N]):
    for i in parallel(N):
        store(y[i], load(x0[i]) ** a)
"""
    _run(text, [_edge_input()], [_f32(len(_EDGE))])


# --------------------------------------------------------------------- tiles

def test_tile_integer_powers_of_negative_values():
    text = """
kernel fz(x0: gm f32[N]) -> (y2: gm f32[N], y3: gm f32[N], y5: gm f32[N], ym2: gm f32[N], y0: gm f32[N]):
    const T = 16
    for b in parallel(cdiv(N, T)):
        j = b * T
        t = load(x0[j:j + T])
        store(y2[j:j + T], t ** 2)
        store(y3[j:j + T], t ** 3)
        store(y5[j:j + T], t ** 5)
        store(ym2[j:j + T], (abs(t) + 0.5) ** -2)
        store(y0[j:j + T], t ** 0)
"""
    _run(text, [_edge_input()], [_f32(len(_EDGE))] * 5)


def test_tile_functions_of_infinities_and_zeros_match_numpy():
    """The compositions select makes (erf, tanh, sigmoid) give NumPy's value at +-inf and +-0 too:
    erf's sign x / |x| was inf / inf = NaN at inf (gelu(inf) NaN where torch gives inf). NaN inputs
    are left out: the vector Max/Min do not propagate NaN (docs/verification.md)."""
    values = tuple(v for v in _EDGE if v == v)
    exprs = ["erf(t)", "tanh(t)", "sigmoid(t)", "t * 0.5 * (1.0 + erf(t * 0.7071067811865476))", "relu(t)",
             "exp(t)", "clamp(t, -1.0, 2.0)"]
    outs = ", ".join(f"y{k}: gm f32[N]" for k in range(len(exprs)))
    body = "\n".join(f"        store(y{k}[j:j + T], {e})" for k, e in enumerate(exprs))
    text = f"""
kernel fz(x0: gm f32[N]) -> ({outs}):
    const T = 16
    for b in parallel(cdiv(N, T)):
        j = b * T
        t = load(x0[j:j + T])
{body}
"""
    _run(text, [Values((len(values),), "f32", values=values)], [_f32(len(values))] * len(exprs))


def test_tile_floor_and_ceil_of_negative_values():
    text = """
kernel fz(x0: gm f32[R, C]) -> (y: gm f32[R, C], z: gm f32[R, C]):
    const T = 16
    for r in parallel(R):
        for j in range(0, C, T):
            t = load(x0[r, j:j + T]) * 4.0
            store(y[r, j:j + T], floor(t))
            store(z[r, j:j + T], ceil(t))
"""
    _run(text, [_f32(3, 40, lo=-3.0, hi=3.0)], [_f32(3, 40)] * 2)


def test_means_with_tails():
    """mean of all elements, along axis 1 (keepdims or not) and along axis 0, on tiles with tails."""
    text = """
kernel fz(x0: gm f32[R, C]) -> (ya: gm f32[NRB], yr: gm f32[R], yk: gm f32[R, C], yc: gm f32[C]):
    const RB = 4
    for rb in parallel(cdiv(R, RB)):
        r = rb * RB
        t = load(x0[r:r + RB, :])
        store(ya[rb], mean(t))
        store(yr[r:r + RB], mean(t, axis=1))
        store(yk[r:r + RB, :], t - mean(t, axis=-1, keepdims=True))
    for c in parallel(C):
        store(yc[c:c + 1], mean(load(x0[:, c:c + 1]), axis=0))
"""
    _run(text, [_f32(10, 37)], [_f32(3), _f32(10), _f32(10, 37), _f32(37)])


def test_one_d_reductions_with_axis_and_keepdims():
    text = """
kernel fz(x0: gm f32[N]) -> (ys: gm f32[NB], ym: gm f32[NB], yk: gm f32[NB]):
    const T = 16
    for b in parallel(cdiv(N, T)):
        j = b * T
        t = load(x0[j:j + T])
        store(ys[b], sum(t, axis=0))
        store(ym[b], mean(t, axis=-1))
        store(yk[b:b + 1], max(t, axis=0, keepdims=True))
"""
    _run(text, [_f32(40)], [_f32(3), _f32(3), _f32(3)])


def test_every_reduction_lowers_along_axis_0_with_tails():
    """sum, max, min and prod along the rows of a 2-D tile whose column block has a tail."""
    text = """
kernel fz(x0: gm f32[R, C]) -> (ys: gm f32[C], ym: gm f32[C], yn: gm f32[C], yp: gm f32[C]):
    const T = 16
    for b in parallel(cdiv(C, T)):
        j = b * T
        t = load(x0[:, j:j + T])
        store(ys[j:j + T], sum(t, axis=0))
        store(ym[j:j + T], max(t, axis=0))
        store(yn[j:j + T], min(t, axis=0))
        store(yp[j:j + T], prod(t, axis=0))
"""
    _run(text, [_f32(5, 37, lo=0.5, hi=1.5)], [_f32(37)] * 4)


def test_exclusive_sums_forward_and_reverse_with_tails():
    text = """
kernel fz(x0: gm f32[R, C]) -> (ye: gm f32[R, C], yr: gm f32[R, C]):
    for r in parallel(R):
        t = load(x0[r, :])
        store(ye[r, :], cumsum(t, exclusive=True))
        store(yr[r, :], cumsum(t, exclusive=True, reverse=True))
"""
    _run(text, [_f32(3, 200)], [_f32(3, 200), _f32(3, 200)])


def test_a_scan_of_a_row_reduction_in_a_bigger_tiles_buffer():
    # the column sums share a buffer with the 2-D tile (colouring): the scan works on its own
    # extent, which its work areas were sized for, not on the whole buffer
    text = """
kernel fz(x0: gm f32[R, C]) -> (y: gm f32[C]):
    for j in parallel(1):
        t = load(x0[:, :])
        store(y[:], cumsum(sum(t, axis=0)))
"""
    _run(text, [_f32(8, 300)], [_f32(300)])


@pytest.mark.parametrize("op", ["+", "-", "*", "/"])
def test_column_vector_on_the_left(op):
    text = f"""
kernel fz(x0: gm f32[R, C]) -> (y: gm f32[R, C]):
    const RB = 2
    for rb in parallel(cdiv(R, RB)):
        r = rb * RB
        t = load(x0[r:r + RB, :])
        store(y[r:r + RB, :], sum(t, axis=1, keepdims=True) {op} (abs(t) + 0.5))
"""
    _run(text, [_f32(5, 37)], [_f32(5, 37)])


@pytest.mark.parametrize("branches", ["2.0, t", "t, -2.0"])
def test_where_with_a_scalar_branch_on_tails(branches):
    text = f"""
kernel fz(x0: gm f32[R, C]) -> (y: gm f32[R, C]):
    const RB = 2
    const TC = 8
    for rb, cb in parallel(cdiv(R, RB), cdiv(C, TC)):
        r = rb * RB
        c = cb * TC
        t = load(x0[r:r + RB, c:c + TC])
        store(y[r:r + RB, c:c + TC], where(t < 0.0, {branches}))
"""
    _run(text, [_f32(3, 19)], [_f32(3, 19)])


# --------------------------------------------------------------------- scratch shapes from consts

def test_scratch_shaped_by_const_expressions():
    text = """
kernel fz(x0: gm f32[R, C]) -> (y: gm f32[R]):
    const T = 8
    const NB = cdiv(C, T)
    const W = maximum(minimum(NB, 3), 1) + (C - 10) // 4 - (C - 10) // 4 + NB % 2 - NB % 2
    scratch part: f32[R, NB]
    scratch spare: f32[W]
    for i, jb in parallel(R, NB):
        j = jb * T
        store(part[i, jb], sum(load(x0[i, j:j + T])))
    for i in parallel(R):
        store(y[i], sum(load(part[i, :])))
"""
    _run(text, [_f32(3, 5)], [_f32(3)])
    _run(text, [_f32(2, 70)], [_f32(2)])


def test_host_workspace_expression_keeps_floor_semantics():
    """The host evaluates the workspace with C++ semantics; consts spell the DSL's floor // and %,
    cdiv, minimum and maximum in plain C++ (codegen/kernel.py _host_int)."""
    from ascendcraft.codegen.emit_common import host_int as _host_int
    from ascendcraft.dsl import ast as A
    from ascendcraft.dsl.parser import parse

    k = parse("""
kernel fz(x: gm f32[N]) -> (y: gm f32[N]):
    const A1 = (N - 10) // 4
    const A2 = (N - 10) % 4
    const A3 = cdiv(N - 10, 4)
    const A4 = minimum(N, 5) * maximum(N - 8, 2)
    for i in parallel(N):
        store(y[i], load(x[i]))
""", "t.dsl")
    consts = {c.name: c.value for c in k.body if isinstance(c, A.Const)}
    for n in (0, 3, 9, 10, 11, 17):
        want = {"A1": (n - 10) // 4, "A2": (n - 10) % 4, "A3": -(-(n - 10) // 4),
                "A4": min(n, 5) * max(n - 8, 2)}
        for name, value in want.items():
            spec = KernelSpec("o", "O", (), (), (), "S", (), "", "aiv", _host_int(A.Name(name), consts))
            assert workspace_size(spec, {"N": n}, 48) == value, (name, n)


# --------------------------------------------------------------------- strided copies out, then reads of their gaps

def test_row_blocks_of_a_scratch_read_and_rewritten_in_one_phase():
    """FIXED_BUGS["strided_gap_read"]: each core reads and rewrites [2, 8] and [2, 1] blocks of a
    scratch's 9-float rows; the second block's read lies in the gaps of the first one's copy out, which
    no event needs to order (the simulator took a strided copy's span as written)."""
    _run("""
kernel fz(x: gm f32[R, C]) -> (y: gm f32[R, C]):
    const T = 8
    scratch s: f32[R, C]
    for i in parallel(R):
        for j in range(0, C, T):
            store(s[i, j:j + T], load(x[i, j:j + T]))
    for ib, jb in parallel(cdiv(R, 2), cdiv(C, T)):
        i = ib * 2
        j = jb * T
        u = load(s[i:i + 2, j:j + T])
        store(s[i:i + 2, j:j + T], tanh(u * 0.5 + u))
    for i in parallel(R):
        for j in range(0, C, T):
            store(y[i, j:j + T], load(s[i, j:j + T]) - load(x[i, j:j + T]))
""", [_f32(49, 9)], [_f32(49, 9)])
