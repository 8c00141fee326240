"""Parser golden tests: DSL text -> expected IR, and syntax errors with their locations."""
import re

import pytest

from ascendcraft.dsl import ast as A
from ascendcraft.dsl.parser import parse
from ascendcraft.errors import DSLError

HEADER = "kernel k(x: gm f32[N]) -> (y: gm f32[N]):\n"


def body(text):
    return parse(HEADER + text).body


def test_signature():
    k = parse("kernel leaky(x: f32[B, 128], slope: f32 = 0.01) -> (y: gm f16[B, 128], s: f32[]):\n    pass\n")
    assert k.name == "leaky"
    assert k.inputs == (A.Param("x", A.TensorType("f32", ("B", 128), "gm")),
                        A.Param("slope", A.ScalarType("f32"), A.Float(0.01)))
    assert k.outputs == (A.Param("y", A.TensorType("f16", ("B", 128))), A.Param("s", A.TensorType("f32", ())))
    assert k.body == (A.Pass(),)


def test_generic_signature_type_variables_and_star_dims():
    from ascendcraft.dsl.generics import instantiate
    from ascendcraft.dsl.printer import print_kernel

    text = ("kernel k[T: (f16, bf16, f32), I: (i32, i64)](x: gm T[*B, N], i: gm I[*B], w: gm T[N] = 1.0) "
            "-> (y: gm T[*B, N]):\n    t = cast(load(x[0, :]), T)\n")
    k = parse(text)
    assert k.type_params == (A.TypeParam("T", ("f16", "bf16", "f32")), A.TypeParam("I", ("i32", "i64")))
    assert k.star_dims == ("B",)
    assert k.inputs[0].type == A.TensorType("T", ("B", "N"))      # the star is the kernel's, not the type's
    assert k.inputs[2].default == A.Float(1.0)
    assert parse(print_kernel(k)) == k
    inst = instantiate(k, {"T": "bf16", "I": "i64"})
    assert inst.type_params == () and inst.star_dims == ("B",)
    assert inst.inputs[1].type.dtype == "i64" and inst.body[0].value.args[1] == A.Name("bf16")
    assert instantiate(k, {"T": "bf16", "I": "i64"}) is inst     # one instance per kernel and dtypes


def test_star_dims_around_an_axis_with_their_counts_round_trip():
    from ascendcraft.dsl.printer import print_kernel

    text = ("kernel k(x: gm f32[*A(dim), D, *B], dim: i32, w: gm f32[*C(-1), 4]) "
            "-> (y: gm f32[*A, *B], z: gm f32[*C]):\n    pass\n")
    k = parse(text)
    assert k.star_dims == ("A", "B", "C") and k.star_counts == (("A", "dim"), ("C", -1))
    assert k.inputs[0].type == A.TensorType("f32", ("A", "D", "B"))
    printed = print_kernel(k)
    assert "x: gm f32[*A(dim), D, *B]" in printed and "y: gm f32[*A, *B]" in printed
    assert "w: gm f32[*C(-1), 4]" in printed
    assert parse(printed) == k


@pytest.mark.parametrize("text, message", [
    ("kernel k[T: (f16, f64)](x: T[N]) -> (y: T[N]):\n    pass\n", "'f64' is not a dtype"),
    ("kernel k[T: (f16,), T: (f32,)](x: T[N]) -> (y: T[N]):\n    pass\n", "declared twice"),
    ("kernel k[T: (f16, f16)](x: T[N]) -> (y: T[N]):\n    pass\n", "lists a dtype twice"),
    ("kernel k[T: (f16,)](x: T[N]) -> (y: T[N]):\n    T = 1\n", "it cannot also name a value"),
    ("kernel k[T: (f16,)](x: T[T]) -> (y: T[N]):\n    pass\n", "not a dim"),
    ("kernel k(x: f32[*A, N, *B]) -> (y: f32[N]):\n    pass\n", "x has two star dims without a count (*A, *B)"),
    ("kernel k(x: f32[*A(dim), N, *B]) -> (y: f32[N]):\n    pass\n", "*A(dim): dim is not an integer attribute"),
    ("kernel k(x: f32[*A(dim), N, *B], dim: f32) -> (y: f32[N]):\n    pass\n", "dim is not an integer attribute"),
    ("kernel k(x: f32[*A(dim), N], dim: i32) -> (y: f32[*A(1), N]):\n    pass\n", "*A covers dim axes in x but 1"),
    ("kernel k(x: f32[N]) -> (y: f32[*B, N]):\n    pass\n", "*B is in y only: a star dim's axes come from an input"),
    ("kernel k(x: f32[*B]) -> (y: f32[*B]):\n    scratch s: f32[*B]\n", "a scratch tensor has a fixed rank"),
])
def test_generic_signature_errors(text, message):
    with pytest.raises(DSLError, match=re.escape(message)):
        parse(text)


def test_loops_loads_stores():
    got = body("    for i, c in parallel(N, 4):\n"
               "        for j in range(0, N, T):\n"
               "            t = load(x[i, j:j + T], pad=-inf)\n"
               "            store(y[i, j:], t)\n"
               "            atomic_add(y[0], sum(t))\n"
               "    for j in range(8):\n        pass\n")
    j_slice = A.Slice(A.Name("j"), A.Binary("+", A.Name("j"), A.Name("T")))
    inner = A.For("j", A.Int(0), A.Name("N"), A.Name("T"), (
        A.Assign("t", A.Load(A.Index(A.Name("x"), (A.Name("i"), j_slice)), A.Unary("-", A.Name("inf")))),
        A.Store(A.Index(A.Name("y"), (A.Name("i"), A.Slice(A.Name("j"), None))), A.Name("t")),
        A.Store(A.Index(A.Name("y"), (A.Int(0),)), A.Call("sum", (A.Name("t"),)), accumulate=True),
    ))
    assert got == (A.ParallelFor(("i", "c"), (A.Name("N"), A.Int(4)), (inner,)),
                   A.For("j", A.Int(0), A.Int(8), A.Int(1), (A.Pass(),)))


def test_python_precedence():
    (s,) = body("    z = a + b * c ** -2 < d & e | ~f\n")
    mul = A.Binary("*", A.Name("b"), A.Binary("**", A.Name("c"), A.Int(-2)))
    bor = A.Binary("|", A.Binary("&", A.Name("d"), A.Name("e")), A.Unary("~", A.Name("f")))
    assert s.value == A.Binary("<", A.Binary("+", A.Name("a"), mul), bor)


def test_calls_keywords_tuples_and_negative_literals():
    (s,) = body("    z = window_max(t, kernel=(3, 3), stride=(2,), padding=()) + cast(u, i32, round=\"rint\")\n")
    w = A.Call("window_max", (A.Name("t"),), (A.Keyword("kernel", A.Tuple((A.Int(3), A.Int(3)))),
                                              A.Keyword("stride", A.Tuple((A.Int(2),))),
                                              A.Keyword("padding", A.Tuple(()))))
    c = A.Call("cast", (A.Name("u"), A.Name("i32")), (A.Keyword("round", A.Str("rint")),))
    assert s.value == A.Binary("+", w, c)
    (s,) = body("    z = sum(t, axis=-1) - -x\n")
    assert s.value == A.Binary("-", A.Call("sum", (A.Name("t"),), (A.Keyword("axis", A.Int(-1)),)),
                               A.Unary("-", A.Name("x")))


def test_comments_anywhere_and_missing_final_newline():
    text = ("# leading comment\n\nkernel k(x: f32[N]) -> (y: f32[N]):  # trailing\n"
            "# column-0 comment inside the body\n    for i in parallel(N):\n        # indented comment\n"
            "      # oddly indented comment\n        store(y[i], load(x[i]))")
    k = parse(text)
    assert k.body[0].body == (A.Store(A.Index(A.Name("y"), (A.Name("i"),)),
                                      A.Load(A.Index(A.Name("x"), (A.Name("i"),)))),)


def test_spans_are_kept_but_not_compared():
    k = parse(HEADER + "    t = load(x[0:4])\n")
    s = k.body[0]
    assert (s.span.line, s.span.column) == (2, 5)
    assert s == A.Assign("t", A.Load(A.Index(A.Name("x"), (A.Slice(A.Int(0), A.Int(4)),))))


@pytest.mark.parametrize("text, line, col, fragment", [
    ("kernel k(x: f32[N]) -> (y: f32[N])\n    pass\n", 1, 35, "expected: ':'"),
    (HEADER + "    t = load(x[0:4]\n", 2, 13, "'(' was never closed"),
    (HEADER + "    t = a and b\n", 2, 11, "use & | ~"),
    (HEADER + "    t = a $ b\n", 2, 11, "unexpected character '$'"),
    (HEADER + "    exp(x)\n", 2, 5, "computed and then thrown away"),
    (HEADER + "    for i in foo(3):\n        pass\n", 2, 14, "range(...) or parallel(...)"),
    (HEADER + "    for i, j in range(3):\n        pass\n", 2, 12, "exactly one loop variable"),
    (HEADER + "    for i in parallel(3, 4):\n        pass\n", 2, 14, "one extent per loop variable"),
    (HEADER + "    t = load(x, y)\n", 2, 9, "load takes one GM region"),
    (HEADER + "    store(y)\n", 2, 5, "exactly two arguments"),
    (HEADER + "    t = f(a=1, 2)\n", 2, 16, "positional argument after a keyword"),
    (HEADER + "    t = 1\n      u = 2\n", 3, 7, "unexpected indentation"),
])
def test_syntax_errors_have_location_and_message(text, line, col, fragment):
    with pytest.raises(DSLError) as info:
        parse(text, "k.dsl")
    err = info.value
    assert (err.span.line, err.span.column) == (line, col)
    rendered = str(err)
    assert fragment in rendered
    assert f"k.dsl:{line}:{col}" in rendered
    assert rendered.splitlines()[-1].strip() != ""


def test_rendered_error_shows_source_line_and_caret():
    with pytest.raises(DSLError) as info:
        parse(HEADER + "    t = a and b\n", "k.dsl")
    lines = str(info.value).splitlines()
    assert lines[0] == "syntax error: unexpected 'and'"
    assert lines[1] == "  --> k.dsl:2:11"
    assert lines[3] == "2 |     t = a and b"
    assert lines[4] == "  |           ^^^"


def test_grammar_has_no_conflicts(caplog):
    import logging

    from lark import Lark

    from ascendcraft.dsl.parser import TileIndenter
    from ascendcraft.dsl_grammar import grammar_text
    with caplog.at_level(logging.DEBUG, logger="lark"):
        Lark(grammar_text(), parser="lalr", postlex=TileIndenter(), debug=True)
    assert [r.getMessage() for r in caplog.records if "conflict" in r.getMessage().lower()] == []
