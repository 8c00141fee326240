"""What the simulator finds at the op's real shapes fails ``lower``, never a note beside PASS.

The op (tests/data/policy/rows_mid.py, 4096 x 2048 f32) is verified at reduced shapes under a
1 MiB budget (63 rows, second shapes under 100 rows); the cost model runs at the real 4096 rows.
The check's real-extent shape sets (4096 rows of 7 columns) find these kernels first, in the
interpreter (the last test); the others turn them off to pin the simulator's own checks, which
stay for what no shape set within the budget reaches.
"""
from pathlib import Path

import pytest

from ascendcraft.checking import check_kernel
from ascendcraft.errors import DSLError
from ascendcraft.lower import KernelMismatch, lower
from ascendcraft.memo import NO_CACHE_ENV
from ascendcraft.task import Task

OP = str(Path(__file__).parents[1] / "data" / "policy" / "rows_mid.py")


@pytest.fixture(autouse=True)
def no_real_extents(request, monkeypatch):
    # the in-process caches hold results keyed by their inputs, not by this patch: off for every test here
    monkeypatch.setenv(NO_CACHE_ENV, "1")
    if "real_extent" not in request.node.name:
        monkeypatch.setattr(Task, "real_extents", lambda self, base, budgets=(), modulus=1: [])


def kernel(rows: str = "B", index: str = "b") -> str:
    return ("kernel k(x: gm f32[B, N]) -> (y: gm f32[B, N]):\n"
            "    const T = 8192\n"
            f"    for b in parallel({rows}):\n"
            "        for j in range(0, N, T):\n"
            f"            store(y[b, j:j + T], relu(load(x[{index}, j:j + T])))\n")


def run(text: str):
    return lower(text, OP, backend="sim", max_bytes=1 << 20, trials=2)


def test_correct_kernel_is_modeled_at_or_above_the_floor():
    result = run(kernel())
    assert result.cost is not None and result.efficiency <= 1.0
    assert result.check.shapes.reduced


def test_kernel_that_covers_only_the_verified_rows_fails_with_the_first_unwritten_element():
    """Right at the reduced shapes (under 100 rows), 100 of 4096 rows at the real size: the
    real-shape run records which output bytes are written, and row 100 never is."""
    with pytest.raises(KernelMismatch, match="real shapes") as e:
        run(kernel(rows="minimum(B, 100)"))
    assert "output-unwritten" in e.value.message and "element 204800 is never written" in e.value.message


def test_a_modeled_time_below_the_floor_is_an_error():
    """The floor is a law whatever the coverage check says: a cost model that goes below it is
    wrong, and the report never prints it as a result."""
    from types import SimpleNamespace

    from ascendcraft.lower import _floor_is_a_law
    ok = SimpleNamespace(cost=SimpleNamespace(time_us=62.0), floor_us=61.9, floor_kind="HBM")
    _floor_is_a_law(ok)
    fast = SimpleNamespace(cost=SimpleNamespace(time_us=21.9), floor_us=61.9, floor_kind="HBM")
    with pytest.raises(KernelMismatch, match="below the HBM floor of 61.9 us") as e:
        _floor_is_a_law(fast)
    assert "cost-model bug" in e.value.hint


def test_out_of_bounds_read_only_at_the_real_size_fails_on_the_simulator():
    """The index is not affine, so the bound check leaves it to the run; the cost-only run at
    4096 rows reads four rows past the end of x."""
    with pytest.raises(KernelMismatch, match="real shapes") as e:
        run(kernel(index="(b * 3 + (B // 1000) * 3) // 3"))
    assert "gm-bounds" in e.value.message


def test_cores_that_collide_only_at_the_real_size_fail_with_the_race():
    """Row minimum(b, 200) is row b at the verification shapes (under 200 rows); at 4096 rows the
    cores from row 200 on all write row 200 in one phase."""
    text = ("kernel k(x: gm f32[B, N]) -> (y: gm f32[B, N]):\n"
            "    const T = 8192\n"
            "    for i in parallel(B):\n"
            "        b = minimum(i, 200)\n"
            "        for j in range(0, N, T):\n"
            "            store(y[b, j:j + T], relu(load(x[b, j:j + T])))\n")
    with pytest.raises(KernelMismatch, match="real shapes") as e:
        run(text)
    assert "output-race" in e.value.message and "element 409600" in e.value.message        # row 200
    assert "output-unwritten" in e.value.message and "element 411648 is never written" in e.value.message


COLLIDE = ("kernel k(x: gm f32[B, N]) -> (y: gm f32[B, N]):\n"
           "    const T = 8192\n"
           "    for i in parallel(B):\n"
           "        b = minimum(i, 200)\n"
           "        for j in range(0, N, T):\n"
           "            store(y[b, j:j + T], relu(load(x[b, j:j + T])))\n")


@pytest.mark.parametrize("text, found", [(kernel(index="(b * 3 + (B // 1000) * 3) // 3"), "index 4096 is out of range"),
                                         (COLLIDE, "race: core"), (kernel(rows="minimum(B, 100)"), "unwritten")])
def test_check_finds_each_of_them_first_at_the_real_extent(text, found):
    try:
        result = check_kernel(text, OP, max_bytes=1 << 20, trials=2)
    except DSLError as err:                           # an index error or a race, located
        assert "at the real extent of batch_size" in err.message and found in err.message, err.message
        return
    assert not result.passed and found in result.summary(), result.summary()
    assert [o.label for o in result.extents if not o.report.passed] == ["batch_size"]


def test_cores_that_collide_in_scratch_only_at_the_real_size_fail_with_the_scratch_race():
    """Each row goes through scratch row minimum(i, 200): its own row at the verification shapes,
    the same row for every core from row 200 on at the real size."""
    text = ("kernel k(x: gm f32[B, N]) -> (y: gm f32[B, N]):\n"
            "    scratch part: f32[B, N]\n"
            "    for i in parallel(B):\n"
            "        b = minimum(i, 200)\n"
            "        store(part[b, :], relu(load(x[i, :])))\n"
            "        store(y[i, :], load(part[b, :]))\n")
    with pytest.raises(KernelMismatch, match="real shapes") as e:
        run(text)
    assert "scratch-race" in e.value.message and "both write scratch 'part' element 409600" in e.value.message  # row 200


def test_reading_scratch_rows_no_phase_wrote_at_the_real_size_fails():
    """The first phase fills only minimum(B, 100) scratch rows, every row at the verification shapes."""
    text = ("kernel k(x: gm f32[B, N]) -> (y: gm f32[B, N]):\n"
            "    scratch part: f32[B, N]\n"
            "    for i in parallel(minimum(B, 100)):\n"
            "        store(part[i, :], relu(load(x[i, :])))\n"
            "    for i in parallel(B):\n"
            "        store(y[i, :], load(part[i, :]))\n")
    with pytest.raises(KernelMismatch, match="real shapes") as e:
        run(text)
    assert "scratch-unwritten" in e.value.message and "reads scratch 'part' element 204800" in e.value.message
