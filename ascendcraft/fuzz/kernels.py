"""Hypothesis strategies generating random, valid DSL kernels over the forms the lowering accepts.

:func:`fuzz_cases` draws a :class:`~ascendcraft.fuzz.differential.FuzzCase`: the kernel text and
its op description (input shapes, dtypes and value ranges, output shapes, attribute values).
Every generated kernel must pass ``check`` and write every element of its outputs; a kernel
that does not is a bug of this generator (``differential.run_case`` reports it with stage
``check``/``unwritten``).

Forms (each a ``FORMS`` key; the tags a case carries in ``FuzzCase.forms`` say which choices it
made): ``map1d``, ``rows2d``, ``blocks2d``, ``stack3d`` (element-wise math over 1-D, 2-D and
rank-3 tiles with broadcasts, :mod:`.forms_elementwise`) and ``rowreduce``, ``colreduce``,
``scan``, ``window``, ``twophase``, ``atomic`` (accumulators, scans, windows, scratch phases and
atomics, :mod:`.forms_reductions`), ``relayout``, ``scratchmm``, ``inplace``, ``maskbcast``
(multi-phase kernels over GM scratch, :mod:`.forms_scratch`), ``strided`` and ``permuted`` (strided
slices of GM and of tiles, strided stores, permuted views, :mod:`.forms_strided`), ``lookup`` (rows
picked by an index read one value per iteration, :mod:`.forms_indexed`); each module's
docstring describes its forms. They come with scalar attributes (``alpha: f32 = ...``, sometimes bound from the op file), bool mask inputs
(``where(load(m[...]), a, b)``) and ``f16`` inputs/outputs through ``cast`` (f16 arithmetic does
not lower; docs/dsl.md). :mod:`.builder` assembles a kernel and :mod:`.expressions` draws its
tile expressions, whose values stay finite and away from the edges of each function's domain by
construction (see ``AVOID``).

``AVOID`` lists what the generator never produces and why; ``KNOWN_BUGS`` lists forms that
the lowering gets wrong today (the finds of this fuzzer): with ``avoid_known=True`` (the
bounded test) they are not generated, so a new find fails the test and a known one does not.
"""
from __future__ import annotations

from hypothesis import strategies as st

from .differential import FuzzCase
from .expressions import Options
from .forms_elementwise import ELEMENTWISE_FORMS
from .forms_indexed import INDEXED_FORMS
from .forms_reductions import REDUCTION_FORMS
from .forms_scratch import SCRATCH_FORMS
from .forms_strided import STRIDED_FORMS
from .forms_taps import TAP_FORMS

__all__ = ["AVOID", "FIXED_BUGS", "FORMS", "KNOWN_BUGS", "Options", "fuzz_cases", "known_bug"]

#: Forms the generator never produces, with the reason (all are rejected by ``check``, give
#: the interpreter and the simulator legitimately different results, or do not lower by the
#: documentation).
AVOID = {
    "matmul other than scratchmm's": "cube phases have their own strict form (docs/lowering.md 'Cube phases'); "
                                     "scratchmm draws that form over scratch operands and results",
    "exclusive scans, iota, tile slices, windows with padding=/dilation=, f16/bf16 arithmetic, rank-4 tiles":
        "documented as not lowering yet (docs/dsl.md 'Writing kernels that lower to AscendC'), or not fuzzed yet",
    "rank-3 tiles reduced whole, scanned or arg-reduced over their leading axis, sliced, loaded with pad=, or "
    "carried across iterations": "documented as not lowering, or (a whole-tile reduction) not fuzzed yet",
    "broadcasts other than [R, C] with [C] or [R, 1], and [B, R, C] with [R, C], [C], [1, R, C], [B, 1, C], "
    "[B, R, 1]": "documented as not lowering",
    "log/sqrt/rsqrt/reciprocal/division of arbitrary values":
        "operands are guarded (abs(e) + 1.0, ...) so both sides stay finite; NaN/Inf placement at a "
        "domain edge differs legitimately between NumPy and the simulator's approximations",
    "exp of large values": "exp is only applied to expressions bounded by 4 in magnitude (no overflow)",
    "floor/ceil and ==/!= of inexact values": "a 1-ulp difference (x / s is Muls(x, 1/s) on Ascend, "
        "exp/tanh are approximations) flips them; only applied to exactly computed values",
    "cumprod/prod of arbitrary values": "products of hundreds of values under/overflow; the factors are "
        "1 + e/64 with |e| <= 4",
    "window tiles shorter than the window": "check accepts it but the interpreter fails at run time "
        "(a tail tile shorter than the window): halos are always loaded with pad= at full length",
    "a name reassigned inside a parallel loop after being defined before it": "check rejects it",
    "scratch read in the phase that writes it": "a race the interpreter reports",
    "where with two scalar branches": "check rejects it (make one branch a tile)",
    "outputs not fully written": "the comparison would see poison on both sides",
    "values that cancel to ~0 in a float sum": "not avoidable in general; with inputs in [-1, 1) the "
        "reductions are of random signs so this is rare (a find of rel-L2 on a near-zero sum is noise)",
}

#: Finds of this fuzzer that are fixed; they are generated again and kept as regression tests.
FIXED_BUGS = {
    "strided_gap_read": "a phase that loads and stores row blocks of one scratch (s[i:i + 2, j:j + T] over a row "
                        "of 9, T = 8): the next block's read of the gap column the last block's strided copy out "
                        "left was a missing-sync race in the simulator, which took each copy's rows as their span "
                        "(sim/runtime/schedule.cpp gm_read_ordered now meets rows only)",
    "scratch_column": "load(part[:, j]) of a 2-D scratch (strided GM region) is mis-copied "
                      "(codegen/kernel.py: a region keeping a non-last axis was copied as contiguous)",
    "reverse_scan_tail": "a range loop with a negative step whose first tile is the short tail "
                         "(range(LAST, -1, -T) with C % T != 0): the prefetch pass's output is invalid "
                         "(value tile f32[tail] does not fit region [T]); prefetch skipped such loops, and now "
                         "moves them ahead with the tile's type joined over the loop (dsl/checker.py _for)",
    "two_scalar_loads": "two loaded one-value tiles read in one statement (load(x[i]) + load(z[i])): "
                        "prefetch._sink_reads swaps the two GetValue reads forever (the lowering hangs)",
    "erf_scalar": "erf of a 0-d tile gives a [1] tile in the interpreter (store then fails: shape (1,) does "
                  "not fit region ()); ascendcraft/dsl/ops.py or interpreter erf",
    "loopvar_reused": "a name that is a range-loop variable in one phase and a plain scalar in another was not "
                      "declared in C++ (build: 'j' was not declared in this scope)",
    "store_of_load": "store(y[...], t) of a tile t that is a load's result, unchanged: the emitted code DeQue'd "
                     "the vecin queue twice (simulator: deque-empty)",
    "scalar_store_region": "store(y[a:b], 0.0) (a scalar broadcast to a region of several elements) stored "
                           "from a one-element Duplicate (simulator: uninitialised read in DataCopyPad)",
    "mean": "select had no rule for mean(...); now every reduction (sum/max/min/prod/mean) of all elements, "
            "and sum/max/min/mean along axis 1 / axis 0 of a 2-D tile, lowers; the mean divides by the run-time "
            "element count (the sum of a tile of ones, so tails count right) (ascendcraft/lowering_passes/select.py _reduce_all)",
    "colvec_left_sub_div": "[R, 1] - [R, C] and [R, 1] / [R, C] were not selected: now Muls(t, -1) + AddColVec and "
                           "Reciprocal(t) + MulColVec (ascendcraft/lowering_passes/select.py _broadcast)",
    "sub_negative_literal": "t - -1.5 became Adds(t, -(-1.5)), emitted as '--1.5f' (C++ decrement); scalar negation "
                            "is now emitted as (-(x)) (codegen/kernel.py scalar)",
    "scalar_functions": "relu/tanh/sigmoid/erf/floor/ceil/clamp/where/comparisons/cast(round=) of 0-d tiles "
                        "(scalar-unit values) could not be emitted; now scalar helpers with NumPy's NaN/inf meaning "
                        "(codegen/kernel.py scalar, _HELPERS, _SCALAR_METHODS)",
    "scalar_pow2": "x ** 2 of a 0-d tile was exp(2 ln x): NaN for x < 0; ScalarPow now takes integral exponents by "
                   "repeated squaring (and tile x ** n for integer literals n by Mul chains) (codegen/kernel.py, "
                   "ascendcraft/lowering_passes/select.py _integer_power)",
    "floor_ceil": "floor/ceil selected Cast(t, f32, round=\"floor\"), which the interpreter rejected: the checker "
                  "does not type API Cast's round= literal; the interpreter now reads an untyped string literal "
                  "(ascendcraft/dsl/interpreter.py _const_kw)",
    "where_scalar_branch_tail": "where(c, 2.0, t) on a tile with a tail: the scalar branch was a Duplicate of the "
                                "static shape; now Select(CompareScalar(t, nan, eq), t, 2.0), a tile of t's run-time "
                                "shape (ascendcraft/lowering_passes/select.py _where)",
    "scratch_const_dim": "a scratch sized by a const (f32[R, NB], const NB = cdiv(C, T)): the host workspace "
                         "expression named NB; consts are now expanded into plain C++ over tiling fields "
                         "(codegen/kernel.py _workspace_expr/_host_int; codegen/tiling.py evaluates ?:)",
    "rowvec_short_vector": "[R, C] + [C] with C shorter than a 32-byte block (C = 1): the per-row op covers whole "
                           "padded rows, reading the row vector's unwritten padding (simulator: uninit-read in Add); "
                           "the emitter now fills the vector's padding with 1 first (codegen/kernel.py _broadcast)",
    "rows_copy_padding": "sum(t, axis=0) (SumRows) into another buffer copied row 0 with a DataCopy of whole 32-byte "
                         "blocks, reading the padding of a row shorter than a block, which abs(...) had not written "
                         "(simulator: uninit-read in DataCopy); now Muls(row 0, 1) over its elements "
                         "(codegen/kernel.py _api, rows form)",
    "mask_logic_broadcast": "& | of bool masks of different shapes ([R, C] & [R, 1] from GM, a comparison | a [C] "
                            "row): select made an And of a [16, 128] and a [16, 1] mask, a program the checker "
                            "rejects; now the masks' 0/1 values combine by the arithmetic broadcast rules "
                            "(ascendcraft/lowering_passes/select_where.py _logic_broadcast)",
    "mask_pitch": "a comparison's bits read at another width than it was compared at (an f32 comparison stored as "
                  "bytes through f16, or & with a GM mask compared as f16): bit (r, c) sits at r * pitch + c of "
                  "the compared values, so rows other than the first were read from the wrong place (simulator: "
                  "uninit-read of the Select mask, or wrong elements); masks now carry their width and are laid "
                  "out again where read at another (ascendcraft/lowering_passes/select_where.py _bits)",
}

#: Forms the lowering gets wrong today (finds), by key. ``avoid_known=True`` keeps them out.
KNOWN_BUGS: dict[str, str] = {
}


#: Form name -> generator ``(draw, Options) -> FuzzCase`` (the order is part of what a seed draws).
FORMS = {**ELEMENTWISE_FORMS, **REDUCTION_FORMS, **SCRATCH_FORMS, **STRIDED_FORMS, **INDEXED_FORMS, **TAP_FORMS}


@st.composite
def fuzz_cases(draw, forms: tuple[str, ...] | None = None, options: Options = Options()) -> FuzzCase:
    """A random valid kernel (and its op description) of one of ``forms`` (default: all)."""
    form = draw(st.sampled_from(list(forms or FORMS)))
    return FORMS[form](draw, options)


def known_bug(result) -> str | None:
    """The KNOWN_BUGS key a failed ``DiffResult`` matches, or None (a new find, or no find; a
    fixed bug that comes back is a new find)."""
    key = _matching_bug(result)
    return key if key in KNOWN_BUGS else None


def _matching_bug(result) -> str | None:
    import re

    if result.ok:
        return None
    msg, text = result.message, result.case.text if result.case is not None else ""
    if result.stage == "interpret" and "erf(" in text and "does not fit the region of shape ()" in msg:
        return "erf_scalar"
    if result.generator_bug:
        return None
    if result.stage == "lower" and re.search(r"selection rule for mean\(", msg):
        return "mean"
    if result.stage == "lower" and re.search(r"selection rule for (sub|div) of tiles of shapes \[\d+, 1\] and "
                                             r"\[\d+, \d+\]", msg):
        return "colvec_left_sub_div"
    if result.stage == "mismatch" and re.search(r"load\(\w+\[:, ", text):
        return "scratch_column"
    if result.stage == "lower" and result.pass_name == "select" and "does not fit the region" in msg and \
            re.search(r"where\([^\n]*, -?[\d.]+[,)]", text):
        return "where_scalar_branch_tail"
    if result.stage == "sim" and "which is not a tiling field" in msg and "workspace expression" in msg:
        return "scratch_const_dim"
    if result.stage == "build" and "lvalue required as decrement operand" in msg:
        return "sub_negative_literal"
    if result.stage == "emit" and re.search(r"scalar function \w+ cannot be emitted", msg):
        return "scalar_functions"
    if result.stage == "timeout" and result.pass_name == "prefetch":
        return "two_scalar_loads"
    if result.stage == "lower" and "round= is not a known constant" in msg:
        return "floor_ceil"
    if result.stage == "lower" and result.pass_name == "prefetch" and "does not fit region" in msg and \
            re.search(r"range\(\w+, -1, -", text):
        return "reverse_scan_tail"
    if result.stage == "mismatch" and re.search(r"\*\* 2", text) and "parallel(N)" in text:
        return "scalar_pow2"
    if result.stage == "lower" and re.search(r"(And|Or) needs two tiles of one dtype and shape", msg):
        return "mask_logic_broadcast"
    if result.stage == "sim" and "Select reads selMask" in msg and "uninit-read" in msg:
        return "mask_pitch"
    return None

