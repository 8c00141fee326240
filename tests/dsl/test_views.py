"""``xv = view(x, (...))``: another shape of a GM tensor's elements (parser, printer, checker,
interpreter). The lowering's side is tests/lowering/test_view_lowering.py."""
import numpy as np
import pytest

from ascendcraft import dtypes as D
from ascendcraft.chips import load_chip
from ascendcraft.dsl import ast as A
from ascendcraft.dsl.checker import Binding, check
from ascendcraft.dsl.interpreter import interpret
from ascendcraft.dsl.parser import parse
from ascendcraft.dsl.printer import print_kernel
from ascendcraft.errors import DSLError, InterpreterError

CHIP = load_chip("910B2")

# heads of a [S, E] input: x viewed as [S, NH, D]; the output written through a view of it, a
# scratch viewed twice (a view of a view)
HEADS = """kernel heads(x: gm f32[S, E], nh: i32) -> (y: gm f32[S, E]):
    const NH = nh
    const D = E // NH
    const SD = S * D
    scratch s: f32[NH, S, D]
    xv = view(x, (S, NH, D))
    yv = view(y, (S, NH, D))
    sv = view(s, (NH, S, D))
    flat = view(sv, (NH, SD))
    for h, r in parallel(NH, S):
        store(s[h, r, :], load(xv[r, h, :]) * 2.0)
    for h, r in parallel(NH, S):
        store(yv[r, h, :], load(sv[h, r, :]) + 1.0)
"""


def _run(src, dims, attrs, arrays):
    k = parse(src, "k.dsl")
    ck = check(k, Binding(dims, attrs), CHIP)
    gm = dict(arrays)
    for p in k.outputs:
        gm[p.name] = np.full(ck.params[p.name].shape, np.nan, D.NUMPY[p.type.dtype])
    interpret(ck, gm)
    return ck, [gm[p.name] for p in k.outputs]


def test_a_view_parses_prints_and_round_trips():
    k = parse(HEADS, "k.dsl")
    v = next(s for s in k.body if isinstance(s, A.View) and s.name == "xv")
    assert v == A.View("xv", "x", ("S", "NH", "D"))
    assert "    xv = view(x, (S, NH, D))" in print_kernel(k)
    assert parse(print_kernel(k)) == k
    one = parse("kernel k(x: gm f32[N]) -> (y: gm f32[N]):\n    xv = view(x, (N,))\n    store(y, load(xv))\n")
    assert "view(x, (N,))" in print_kernel(one) and parse(print_kernel(one)) == one


def test_a_view_s_extents_are_names_or_integers():
    with pytest.raises(DSLError) as e:
        parse(HEADS.replace("(NH, S, D)", "(NH, S * 1, D)"), "k.dsl")
    assert e.value.kind == "syntax error" and "each extent is a dim, a const or an integer" in str(e.value)
    assert "const HW = H * W first" in str(e.value) and "k.dsl:8:23" in str(e.value)


def test_views_read_and_write_the_same_memory_in_the_interpreter():
    x = np.random.default_rng(0).standard_normal((7, 12)).astype(np.float32)
    ck, (y,) = _run(HEADS, {"S": 7, "E": 12}, {"nh": 3}, {"x": x})
    np.testing.assert_array_equal(y, x * 2.0 + 1.0)
    t = ck.symbols.tensor("sv")
    assert t.base == "s" and t.shape == (3, 7, 4) and t.role == "scratch"
    assert [p.name for p in ck.symbols.parameters()] == ["x", "y"] and [s.name for s in ck.symbols.scratch()] == ["s"]
    assert ck.symbols.tensor("flat").base == "s" and ck.symbols.tensor("flat").shape == (3, 28)   # a view of a view


@pytest.mark.parametrize("body, message", [
    ("    xv = view(x, (S, E, 2))\n", "has 168 elements; x has 84"),
    ("    for r in parallel(S):\n        xv = view(x, (E, S))\n", "a view is declared at the top"),
    ("    xv = view(q, (E, S))\n", "'q' is not a GM tensor"),
    ("    xv = view(x, (E, S))\n    store(xv[0, :], 1.0)\n", "xv is a view of the input x"),
])
def test_a_wrong_view_is_refused_at_its_line(body, message):
    src = f"kernel k(x: gm f32[S, E]) -> (y: gm f32[S, E]):\n{body}    store(y, load(x))\n"
    with pytest.raises(DSLError) as e:
        check(parse(src, "k.dsl"), Binding({"S": 7, "E": 12}, {}), CHIP)
    assert message in str(e.value), str(e.value)
    assert e.value.span is not None and e.value.span.line in (2, 3)


def test_a_race_through_a_view_and_its_tensor_is_found():
    # core r writes row r of y; through the view every core also writes element [0, 0]
    src = """kernel k(x: gm f32[R, N]) -> (y: gm f32[R, N]):
    yv = view(y, (R, N))
    for r in parallel(R):
        store(y[r, :], load(x[r, :]))
        store(yv[0, 0], 1.0)
"""
    with pytest.raises(InterpreterError) as e:
        _run(src, {"R": 4, "N": 8}, {}, {"x": np.ones((4, 8), np.float32)})
    assert e.value.kind == "race" and "yv" in str(e.value)


# ---------------------------------------------------------------- permuted views
PERMUTED = """kernel k(x: gm f32[B, H, S, D]) -> (y: gm f32[B, S, H, D], z: gm f32[B, H, D, S]):
    xt = permute(x, (0, 2, 1, 3))
    zt = permute(z, (0, 1, 3, 2))
    for b, s in parallel(B, S):
        store(y[b, s, :, :], load(xt[b, s, :, :]) * 2.0)
    for b, h in parallel(B, H):
        store(zt[b, h, :, :], load(x[b, h, :, :]) + 1.0)
"""


def test_a_permuted_view_parses_prints_and_round_trips():
    k = parse(PERMUTED, "k.dsl")
    v = next(s for s in k.body if isinstance(s, A.View) and s.name == "xt")
    assert v == A.View("xt", "x", (), perm=(0, 2, 1, 3))
    assert "    xt = permute(x, (0, 2, 1, 3))" in print_kernel(k) and parse(print_kernel(k)) == k


def test_permuted_views_read_and_write_at_the_strides_of_their_axes():
    x = np.random.default_rng(1).standard_normal((2, 3, 5, 4)).astype(np.float32)
    ck, (y, z) = _run(PERMUTED, {"B": 2, "H": 3, "S": 5, "D": 4}, {}, {"x": x})
    np.testing.assert_array_equal(y, x.transpose(0, 2, 1, 3) * 2.0)
    np.testing.assert_array_equal(z, x.transpose(0, 1, 3, 2) + 1.0)
    t = ck.symbols.tensor("xt")
    assert t.shape == (2, 5, 3, 4) and t.dims == ("B", "S", "H", "D") and t.perm == (0, 2, 1, 3) and t.over == "x"
    assert ck.symbols.strides("xt") == [("H", "S", "D"), ("D",), ("S", "D"), ()]
    assert ck.symbols.strides("zt") == [("H", "D", "S"), ("D", "S"), (), ("S",)]


@pytest.mark.parametrize("body, message", [
    ("    xt = permute(x, (0, 0))\n", "the order must name each of x's 2 axes 0..1 once"),
    ("    xt = permute(x, (1, 0))\n    xv = view(xt, (S, E))\n", "xv views xt, a permuted view"),
    ("    xt = permute(x, (1, 0))\n    store(xt[0, :], 1.0)\n", "xt is a view of the input x"),
])
def test_a_wrong_permutation_is_refused_at_its_line(body, message):
    src = f"kernel k(x: gm f32[S, E]) -> (y: gm f32[S, E]):\n{body}    store(y, load(x))\n"
    with pytest.raises(DSLError) as e:
        check(parse(src, "k.dsl"), Binding({"S": 7, "E": 12}, {}), CHIP)
    assert message in str(e.value), str(e.value)


def test_a_race_through_a_permuted_view_is_found():
    # core r writes row r of y, and through the transpose column r: element [r, r'] is written twice
    src = """kernel k(x: gm f32[N, N]) -> (y: gm f32[N, N]):
    yt = permute(y, (1, 0))
    for r in parallel(N):
        store(y[r, :], load(x[r, :]))
        store(yt[r, :], load(x[r, :]))
"""
    with pytest.raises(InterpreterError) as e:
        _run(src, {"N": 4}, {}, {"x": np.ones((4, 4), np.float32)})
    assert e.value.kind == "race"
