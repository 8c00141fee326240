"""Names: the keywords are exactly what the grammar reserves (and what docs/dsl.md lists); every
other identifier, op names included, can name a variable, parameter, dim or constant; a call
always means the op."""
import re
from pathlib import Path

import numpy as np
import pytest

from ascendcraft import dtypes as D
from ascendcraft.chips import load_chip
from ascendcraft.dsl import ast as A
from ascendcraft.dsl.checker import Binding, check
from ascendcraft.dsl.interpreter import interpret
from ascendcraft.dsl.ops import OPS
from ascendcraft.dsl.parser import keywords, parse
from ascendcraft.dsl.printer import print_kernel
from ascendcraft.errors import DSLError

CHIP = load_chip("910B2")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "dsl.md"


def _docs_keywords() -> set[str]:
    text = DOCS.read_text()
    m = re.search(r"^Keywords, reserved everywhere[^`]*`([^`]+)`", text, re.M)
    assert m, "docs/dsl.md has no 'Keywords, reserved everywhere ...: `...`' paragraph"
    return set(m.group(1).split())


def test_docs_list_exactly_the_keywords_the_grammar_reserves():
    assert _docs_keywords() == set(keywords())


def test_the_keywords():
    assert keywords() == {"kernel", "for", "in", "const", "scratch", "buffer", "pass",
                          "bool", "i8", "i16", "i32", "i64", "u8", "f16", "bf16", "f32",
                          "True", "False", "inf", "nan", "CORES"}
    assert set(D.ALL) <= keywords() and set(A.DTYPES) == set(D.ALL)   # every dtype, and only those, is a keyword
    assert not keywords() & set(OPS)     # no op name is a keyword
    assert not keywords() & {"load", "store", "atomic_add", "range", "parallel", "free", "gm", "ub", "l1", "l0c"}


HEADER = "kernel k(x: gm f32[N]) -> (y: gm f32[N]):\n"


@pytest.mark.parametrize("text, word, line, col", [
    (HEADER + "    in = load(x[0:8])\n", "in", 2, 5),
    (HEADER + "    f32 = load(x[0:8])\n", "f32", 2, 5),
    (HEADER + "    t = for + 1\n", "for", 2, 9),
    (HEADER + "    const = 3\n", "const", 2, 5),
    (HEADER + "    const CORES = 3\n", "CORES", 2, 11),
    (HEADER + "    for in in range(3):\n        pass\n", "in", 2, 9),
    (HEADER + "    for i, bool in parallel(3, 4):\n        pass\n", "bool", 2, 12),
    ("kernel k(kernel: gm f32[N]) -> (y: gm f32[N]):\n    pass\n", "kernel", 1, 10),
    ("kernel k(x: gm f32[N], nan: f32 = 1.0) -> (y: gm f32[N]):\n    pass\n", "nan", 1, 24),
    ("kernel k(x: gm f32[in]) -> (y: gm f32[N]):\n    pass\n", "in", 1, 20),
    (HEADER + "    scratch pass: f32[N]\n", "pass", 2, 13),
])
def test_a_keyword_cannot_be_a_name_anywhere(text, word, line, col):
    with pytest.raises(DSLError) as info:
        parse(text, "k.dsl")
    err = info.value
    assert err.kind == "syntax error" and f"{word!r} is a keyword" in err.message, str(err)
    assert (err.span.line, err.span.column) == (line, col), str(err)
    assert f"{word}_" in err.hint and "neg" in err.hint    # a rename, and that op names are free


def test_kernel_stays_a_keyword_argument_of_window_ops():
    (s,) = parse(HEADER + "    t = window_max(u, kernel=(2, 2), stride=2)\n").body
    assert s.value.kwarg("kernel") == A.Tuple((A.Int(2), A.Int(2)))


def test_dtypes_and_constants_are_names_in_expressions():
    (s,) = parse(HEADER + "    t = cast(u, f16) + inf + CORES + True\n").body
    names = {n.id for n in A.walk(s) if isinstance(n, A.Name)}
    assert names == {"u", "f16", "inf", "CORES", "True"}
    k = parse("kernel k(x: gm f32[N]) -> (y: gm f32[N]):\n    scratch w: f32[CORES, 8]\n")
    assert k.body[0].type.shape == ("CORES", 8)


def test_a_misspelt_dtype_is_still_reported_by_the_checker():
    with pytest.raises(DSLError) as info:
        check(parse("kernel k(x: gm float32[N]) -> (y: gm f32[N]):\n    pass\n", "k.dsl"),
              Binding({"N": 8}, {}), CHIP)
    assert "unknown dtype 'float32'" in str(info.value)


# --------------------------------------------------------------------- op names as names

OP_NAMES = """kernel k(exp: gm f32[R, C], sum: f32 = 2.0) -> (max: gm f32[R, C], Max: gm f32[R]):
    const neg = 8
    for lt in parallel(R):
        sub = 0.0
        for range in range(0, C, neg):
            load = load(exp[lt, range:range + neg])
            neg2 = -load
            where = neg2 < 0.0
            abs = where(where, neg2, load * sum)
            store(max[lt, range:range + neg], abs)
            sub = sub + sum(abs)
        store(Max[lt], sub)
"""


def _run(text, dims, arrays, attrs=None):
    k = parse(text, "k.dsl")
    ck = check(k, Binding(dims, attrs or {}), CHIP)
    gm = dict(arrays)
    for p in k.outputs:
        gm[p.name] = np.full(ck.params[p.name].shape, np.nan, np.float32)
    interpret(ck, gm)
    return ck, gm


def test_op_names_name_parameters_dims_constants_and_variables():
    x = np.random.default_rng(0).standard_normal((3, 20)).astype(np.float32)
    ck, gm = _run(OP_NAMES, {"R": 3, "C": 20}, {"exp": x}, {"sum": 2.0})
    want = np.where(-x < 0, -x, x * 2.0)
    assert np.allclose(gm["max"], want) and np.allclose(gm["Max"], want.sum(axis=1), rtol=1e-5)
    # sum(abs) and where(where, ...) call the ops although variables of those names exist: noted
    assert sorted((w.span.line, w.message.split("(")[0]) for w in ck.warnings) == [(9, "where"), (11, "sum")]
    assert all(w.kind == "warning" for w in ck.warnings)


def test_printing_and_parsing_keeps_op_named_variables():
    k = parse(OP_NAMES)
    assert parse(print_kernel(k)) == k


def test_a_shadowed_op_call_is_the_op_and_a_warning_located_at_the_call():
    text = HEADER + "    neg = load(x[0:8])\n    t = neg(neg) * 2.0\n    store(y[0:8], t)\n"
    x = np.arange(8, dtype=np.float32)
    ck, gm = _run(text, {"N": 8}, {"x": x})
    assert np.array_equal(gm["y"], -2.0 * x)
    (w,) = ck.warnings
    assert (w.span.line, w.span.column) == (3, 9)
    assert "calls the op neg" in w.message and "the variable 'neg'" in w.message and "neg_" in w.hint


def test_calling_a_variable_that_is_no_op_is_an_error_at_the_call():
    with pytest.raises(DSLError) as info:
        _run(HEADER + "    foo = load(x[0:8])\n    t = foo(foo)\n", {"N": 8}, {"x": np.zeros(8, np.float32)})
    err = info.value
    assert "'foo' is a variable here, not a function" in err.message
    assert (err.span.line, err.span.column) == (3, 9)


def test_an_op_used_as_a_value_says_to_call_it():
    with pytest.raises(DSLError) as info:
        _run(HEADER + "    t = exp + 1.0\n", {"N": 8}, {"x": np.zeros(8, np.float32)})
    assert "exp is an op; call it: exp(...)" in str(info.value)


def test_trees_built_with_a_keyword_as_a_name_are_rejected_by_the_checker():
    k = parse(HEADER + "    t = 1\n")
    bad = A.Kernel(k.name, k.inputs, k.outputs, (A.Assign("in", A.Int(1)),))
    with pytest.raises(DSLError) as info:
        check(bad, Binding({"N": 8}, {}), CHIP)
    assert "'in': it is a keyword" in str(info.value)
