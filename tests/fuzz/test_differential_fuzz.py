"""Differential fuzzing of the lowering (bounded): random valid kernels, interpreter vs simulator.

The long run is ``python3 benchmarks/fuzz_lowering.py --examples 500 --seed 0``. Here:

* every generated kernel checks and runs in the interpreter (cheap, many examples, known-bug
  forms included: the generator must only make valid kernels);
* a small, derandomized sample is lowered, built and run on the simulator and must agree with
  the interpreter (and a few kernels of the newest form, rank-3 ``stack3d``, which the sample
  seldom draws); the forms of ``KNOWN_BUGS`` are left out, so a new find fails here;
* each find is a regression test below, xfail(strict=True) while the bug is open, so it fails
  loudly once fixed (then drop the mark, and the form from ``KNOWN_BUGS``).
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings

from ascendcraft.fuzz.differential import FuzzCase, OpDesc, TensorDesc, run_case
from ascendcraft.fuzz.kernels import FIXED_BUGS, FORMS, KNOWN_BUGS, Options, fuzz_cases, known_bug

# Each example builds a C++ kernel (2-3 s with a cold simulator cache), hence no deadline and a
# small sample; derandomized so CI sees the same kernels every run. No health check needs
# suppressing: drawing a kernel is cheap.
LOWERED = settings(max_examples=8, derandomize=True, deadline=None, database=None)
CHECKED = settings(max_examples=15, derandomize=True, deadline=None, database=None)
# the newest form alone, a few kernels: the all-forms sample above seldom draws it
NEWEST = settings(max_examples=3, derandomize=True, deadline=None, database=None)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_generated_kernel_checks_and_runs_in_the_interpreter(form):
    @CHECKED
    @given(fuzz_cases((form,), Options(avoid_known=False)))
    def prop(case):
        assert case.forms[0] == form
        r = run_case(case, lower=False)
        assert r.ok or known_bug(r), "generator bug:\n" + r.report()
    prop()


def _agrees_on_the_simulator(case):
    r = run_case(case)
    assert r.ok, f"lowering bug{' (known: ' + known_bug(r) + ')' if known_bug(r) else ''}:\n" + r.report()


@LOWERED
@given(fuzz_cases(options=Options(avoid_known=True)))
def test_lowered_kernels_agree_with_the_interpreter_on_the_simulator(case):
    _agrees_on_the_simulator(case)


@NEWEST
@given(fuzz_cases(("stack3d",), Options(avoid_known=True)))
def test_lowered_rank_3_kernels_agree_with_the_interpreter_on_the_simulator(case):
    _agrees_on_the_simulator(case)


# the multi-phase forms over GM scratch (relayouts, products of scratch tensors, in-place updates)
# and broadcast mask logic: what attention, convolution and fused kernels are made of
SCRATCH = settings(max_examples=6, derandomize=True, deadline=None, database=None)


@SCRATCH
@given(fuzz_cases(("relayout", "scratchmm", "inplace", "maskbcast"), Options(avoid_known=True)))
def test_lowered_multi_phase_scratch_kernels_agree_with_the_interpreter_on_the_simulator(case):
    _agrees_on_the_simulator(case)


# strided slices (every s-th element of GM rows and rows of GM, padded or clamped, tiles sliced with
# steps, strided stores; the step a literal, a const or an attribute) and permuted views
STRIDED = settings(max_examples=5, derandomize=True, deadline=None, database=None)


@STRIDED
@given(fuzz_cases(("strided", "permuted"), Options(avoid_known=True)))
def test_lowered_strided_kernels_agree_with_the_interpreter_on_the_simulator(case):
    _agrees_on_the_simulator(case)


# one value read per iteration (an index, a weight): rows of a table picked by it, what the hoist
# pass reads from a whole tile, or in blocks at the loop's variable (through a flat view when
# partition unpacked the loop's index)
INDEXED = settings(max_examples=5, derandomize=True, deadline=None, database=None)


@INDEXED
@given(fuzz_cases(("lookup",), Options(avoid_known=True)))
def test_lowered_lookup_kernels_agree_with_the_interpreter_on_the_simulator(case):
    _agrees_on_the_simulator(case)


# tap products on the cube cores: over channel-last images, and in a loop of phases whose vector
# phases lay each sequence out while the cube cores compute the ones before (codegen/taps.py)
TAPS = settings(max_examples=5, derandomize=True, deadline=None, database=None)


@TAPS
@given(fuzz_cases(("taps1d", "taps2d", "tapsloop"), Options(avoid_known=True)))
def test_lowered_tap_product_kernels_agree_with_the_interpreter_on_the_simulator(case):
    _agrees_on_the_simulator(case)


# ----------------------------------------------------------------------------- finds


def _f32(*shape, lo=-1.0, hi=1.0):
    return TensorDesc(tuple(shape), "f32", lo, hi)


def _bool(*shape):
    return TensorDesc(tuple(shape), "bool")


def _case(text: str, inputs, outputs, attrs=()) -> FuzzCase:
    return FuzzCase(text.strip("\n") + "\n", OpDesc(tuple(inputs), tuple(outputs), tuple(attrs)))


class StageChanged(Exception):
    """An open find now fails at another stage: a real failure, not the expected one."""


def _fixed(bug: str):
    assert bug in FIXED_BUGS
    return ()


def _open(bug: str):
    assert bug in KNOWN_BUGS
    return pytest.mark.xfail(strict=True, raises=AssertionError, reason=f"{bug}: {KNOWN_BUGS[bug]}")


FINDS = [
    pytest.param(_case("""
kernel fz(x0: gm f32[N]) -> (y: gm f32[N]):
    const T = 8
    for b in parallel(cdiv(N, T)):
        j = b * T
        store(y[j:j + T], load(x0[j:j + T]))
""", [_f32(1)], [_f32(1)]), "sim", id="store_of_load", marks=_fixed("store_of_load")),
    pytest.param(_case("""
kernel fz(x0: gm f32[R, C]) -> (y: gm f32[R, C]):
    const T = 16
    for r in parallel(R):
        for j in range(0, C, T):
            store(y[r, j:j + T], load(x0[r, j:j + T]) - -1.5)
""", [_f32(3, 40)], [_f32(3, 40)]), "build", id="sub_negative_literal", marks=_fixed("sub_negative_literal")),
    pytest.param(_case("""
kernel fz(x0: gm f32[N]) -> (y: gm f32[N]):
    for i in parallel(N):
        store(y[i], relu(load(x0[i])))
""", [_f32(60)], [_f32(60)]), "emit", id="scalar_functions", marks=_fixed("scalar_functions")),
    pytest.param(_case("""
kernel fz(x0: gm f32[N]) -> (y: gm f32[N]):
    for i in parallel(N):
        store(y[i], load(x0[i]) ** 2)
""", [_f32(60)], [_f32(60)]), "mismatch", id="scalar_pow2", marks=_fixed("scalar_pow2")),
    pytest.param(_case("""
kernel fz(x0: gm f32[N]) -> (y: gm f32[N]):
    for i in parallel(N):
        store(y[i], erf(load(x0[i])))
""", [_f32(60)], [_f32(60)]), "emit", id="erf_scalar", marks=_fixed("erf_scalar")),
    pytest.param(_case("""
kernel fz(x0: gm f32[N], x1: gm f32[N]) -> (y: gm f32[N]):
    for i in parallel(N):
        store(y[i], load(x0[i]) + load(x1[i]))
""", [_f32(6), _f32(6)], [_f32(6)]), "timeout", id="two_scalar_loads", marks=_fixed("two_scalar_loads")),
    pytest.param(_case("""
kernel fz(x0: gm f32[R, C]) -> (y: gm f32[R, C]):
    const T = 16
    for r in parallel(R):
        for j in range(0, C, T):
            store(y[r, j:j + T], floor(load(x0[r, j:j + T]) * 4.0))
""", [_f32(3, 40)], [_f32(3, 40)]), "lower", id="floor_ceil", marks=_fixed("floor_ceil")),
    pytest.param(_case("""
kernel fz(x0: gm f32[R, C]) -> (y: gm f32[C]):
    const TC = 100
    const RB = 8
    for cb in parallel(cdiv(C, TC)):
        store(y[cb * TC:cb * TC + TC], 0.0)
    for rb, cb in parallel(cdiv(R, RB), cdiv(C, TC)):
        r = rb * RB
        c = cb * TC
        atomic_add(y[c:c + TC], sum(load(x0[r:r + RB, c:c + TC]), axis=0))
""", [_f32(19, 87)], [_f32(87)]), "sim", id="scalar_store_region", marks=_fixed("scalar_store_region")),
    pytest.param(_case("""
kernel fz(x0: gm f32[R, C]) -> (y: gm f32[R, C]):
    const T = 16
    const LAST = (cdiv(C, T) - 1) * T
    for r in parallel(R):
        carry = 0.0
        for j in range(LAST, -1, -T):
            s = load(x0[r, j:j + T]) * 2.0
            store(y[r, j:j + T], cumsum(s, reverse=True) + carry)
            carry = carry + sum(s)
""", [_f32(3, 231)], [_f32(3, 231)]), "lower", id="reverse_scan_tail", marks=_fixed("reverse_scan_tail")),
    pytest.param(_case("""
kernel fz(x0: gm f32[R, C]) -> (y: gm f32[R]):
    for r in parallel(R):
        store(y[r], mean(load(x0[r, :])))
""", [_f32(5, 100)], [_f32(5)]), "lower", id="mean", marks=_fixed("mean")),
    pytest.param(_case("""
kernel fz(x0: gm f32[R, C]) -> (y: gm f32[R, C]):
    const RB = 2
    for rb in parallel(cdiv(R, RB)):
        r = rb * RB
        t = load(x0[r:r + RB, :])
        store(y[r:r + RB, :], sum(t, axis=1, keepdims=True) - t)
""", [_f32(5, 100)], [_f32(5, 100)]), "lower", id="colvec_left_sub_div", marks=_fixed("colvec_left_sub_div")),
    pytest.param(_case("""
kernel fz(x: gm f32[R, C]) -> (y: gm f32[C]):
    scratch part: f32[C, R]
    for r in parallel(R):
        for j in range(C):
            store(part[j, r], sum(load(x[r, j:j + 1])))
    for j in parallel(C):
        store(y[j], sum(load(part[j, :])))
""", [_f32(5, 10)], [_f32(10)]), "build", id="loopvar_reused", marks=_fixed("loopvar_reused")),
    pytest.param(_case("""
kernel fz(x0: gm f32[R, C]) -> (y: gm f32[R]):
    const T = 8
    const NB = cdiv(C, T)
    scratch part: f32[R, NB]
    for i, jb in parallel(R, NB):
        j = jb * T
        store(part[i, jb], sum(load(x0[i, j:j + T])))
    for i in parallel(R):
        store(y[i], sum(load(part[i, :])))
""", [_f32(1, 1)], [_f32(1)]), "sim", id="scratch_const_dim", marks=_fixed("scratch_const_dim")),
    pytest.param(_case("""
kernel fz(x0: gm f32[R, C]) -> (y: gm f32[R, C]):
    const RB = 2
    const TC = 8
    for rb, cb in parallel(cdiv(R, RB), cdiv(C, TC)):
        r = rb * RB
        c = cb * TC
        t = load(x0[r:r + RB, c:c + TC])
        store(y[r:r + RB, c:c + TC], where(t < 0.0, 2.0, t))
""", [_f32(1, 9)], [_f32(1, 9)]), "lower", id="where_scalar_branch_tail", marks=_fixed("where_scalar_branch_tail")),
    pytest.param(_case("""
kernel fz(x0: gm f32[R, C], v: gm f32[C]) -> (y: gm f32[R, C]):
    const RB = 2
    for rb in parallel(cdiv(R, RB)):
        r = rb * RB
        store(y[r:r + RB, :], (load(x0[r:r + RB, :]) + abs(load(v))))
""", [_f32(12, 1), _f32(1)], [_f32(12, 1)]), "sim", id="rowvec_short_vector", marks=_fixed("rowvec_short_vector")),
    pytest.param(_case("""
kernel fz(x0: gm f32[R, C]) -> (y: gm f32[C]):
    const TC = 8
    const RB = 2
    for cb in parallel(cdiv(C, TC)):
        store(y[cb * TC:cb * TC + TC], full((TC,), 0.0, f32))
    for rb, cb in parallel(cdiv(R, RB), cdiv(C, TC)):
        r = rb * RB
        c = cb * TC
        atomic_add(y[c:c + TC], sum(abs(load(x0[r:r + RB, c:c + TC])), axis=0))
""", [_f32(1, 1)], [_f32(1)]), "sim", id="rows_copy_padding", marks=_fixed("rows_copy_padding")),
    pytest.param(_case("""
kernel fz(x: gm f32[R, C], m_col: gm bool[R, 1]) -> (y: gm f32[R, C], z: gm bool[R, C]):
    const RB = 8
    const TC = 16
    for rb, cb in parallel(cdiv(R, RB), cdiv(C, TC)):
        r = rb * RB
        n = cb * TC
        t = load(x[r:r + RB, n:n + TC])
        store(y[r:r + RB, n:n + TC], where((t < 0.5) & load(m_col[r:r + RB, :]), t, t * 2.0 - 1.0))
        store(z[r:r + RB, n:n + TC], ~load(m_col[r:r + RB, :]) | (t > 0.0))
""", [_f32(11, 40), _bool(11, 1)], [_f32(11, 40), _bool(11, 40)]), "lower", id="mask_logic_broadcast",
        marks=_fixed("mask_logic_broadcast")),
    pytest.param(_case("""
kernel fz(x: gm f32[R, C], m: gm bool[R, C]) -> (y: gm f32[R, C], z: gm bool[R, C]):
    const RB = 16
    const TC = 100
    for rb, cb in parallel(cdiv(R, RB), cdiv(C, TC)):
        r = rb * RB
        n = cb * TC
        t = load(x[r:r + RB, n:n + TC])
        store(y[r:r + RB, n:n + TC], where((t < 0.5) & load(m[r:r + RB, n:n + TC]), t, t * 2.0 - 1.0))
        store(z[r:r + RB, n:n + TC], t > 0.0)
""", [_f32(17, 200), _bool(17, 200)], [_f32(17, 200), _bool(17, 200)]), "sim", id="mask_pitch",
        marks=_fixed("mask_pitch")),
]


@pytest.mark.parametrize("case, stage", FINDS)
def test_find(case, stage):
    # a hang is cut after 30 s; the others finish in a few seconds (one C++ build at most, which
    # alone took over 5 s on a loaded 2-core machine with a cold cache: a 5 s cut failed a fixed case)
    r = run_case(case, timeout_s=20, case_timeout_s=30 if stage == "timeout" else 60)
    if not r.ok and r.stage != stage:   # an open find must keep failing the way it was found
        raise StageChanged(f"expected stage {stage}, got:\n{r.report()}")
    assert r.ok, r.report()


def test_erf_of_a_one_value_tile_interprets():
    """FIXED_BUGS["erf_scalar"]: the interpreter gave a [1] tile (its emission is scalar_functions)."""
    assert "erf_scalar" in FIXED_BUGS
    case = next(p.values[0] for p in FINDS if p.id == "erf_scalar")
    assert run_case(case, lower=False).ok
