"""GM indices bounded at the op's real dims before anything runs (ascendcraft/dsl/bounds.py)."""
from pathlib import Path

import pytest

from ascendcraft.binding import bind
from ascendcraft.chips import load_chip
from ascendcraft.dsl.bounds import check_gm_bounds
from ascendcraft.dsl.checker import check
from ascendcraft.dsl.parser import parse
from ascendcraft.errors import DSLError
from ascendcraft.checking import check_kernel
from ascendcraft.task import load_task

BIG = str(Path(__file__).parents[1] / "data" / "policy" / "rows_big.py")


def kernel(index: str, loops: str = "    for b in parallel(B):\n") -> str:
    body = loops + "        for j in range(0, N, T):\n"
    return ("kernel k(x: gm f32[B, N]) -> (y: gm f32[B, N]):\n    const T = 8192\n" + body
            + f"            store(y[b, j:j + T], relu(load(x[{index}, j:j + T])))\n")


def bounds(text: str) -> None:
    k = parse(text)
    task = load_task(BIG)
    check_gm_bounds(check(k, bind(k, task.real)[0], load_chip("910B2")))


def test_index_out_of_range_only_at_the_real_size_is_a_located_check_error():
    text = kernel("b + B // 1000")
    with pytest.raises(DSLError) as e:
        check_kernel(text, BIG, max_bytes=4 << 20)
    err = e.value
    assert err.kind == "index error" and "real shapes" in err.message
    assert "reaches 4099" in err.message and "last index 4095" in err.message
    assert err.span.line == 5
    assert "5 |" in str(err)                       # rendered with the kernel line


def test_the_same_kernel_passes_at_the_reduced_shapes_alone(monkeypatch):
    """Without the bound check the kernel is verified at the reduced shapes: its index is in range at
    the reduced B. Only a run at B's real extent (which needs the byte budget for it) reaches it."""
    import ascendcraft.checking as P
    monkeypatch.setattr(P, "check_gm_bounds", lambda checked, values=None: None)
    result = P.check_kernel(kernel("b + B // 1000"), BIG, trials=2, max_bytes=4 << 20, other_shapes=False)
    assert result.passed and result.shapes.reduced, result.summary()
    with pytest.raises(DSLError, match="at the real extent of batch_size .* index 4096 is out of range"):
        P.check_kernel(kernel("b + B // 1000"), BIG, trials=2, max_bytes=4 << 20)


@pytest.mark.parametrize("index", ["b", "B - 1 - b", "minimum(b + B // 1000, B - 1)", "(b * 3) // 3"])
def test_indices_inside_the_tensor_pass(index):
    bounds(kernel(index))


def test_correlated_loops_are_bounded_exactly():
    text = ("kernel k(x: gm f32[B, N]) -> (y: gm f32[B, N]):\n"
            "    for i in parallel(B):\n"
            "        for j in range(0, B - i):\n"
            "            store(y[i + j, 0:8], load(x[i + j, 0:8]))\n")
    bounds(text)          # i + j <= B - 1: no false alarm
    with pytest.raises(DSLError, match="reaches 4096"):
        bounds(text.replace("range(0, B - i)", "range(0, B - i + 1)"))


def test_negative_index_and_loop_local_scalars():
    with pytest.raises(DSLError, match="below 0"):
        bounds(kernel("b - 1"))
    text = ("kernel k(x: gm f32[B, N]) -> (y: gm f32[B, N]):\n"
            "    for rb in parallel(cdiv(B, 4)):\n"
            "        r = rb * 4 + 3\n"
            "        store(y[r, 0:8], load(x[r, 0:8]))\n")
    bounds(text)                                   # 4096 rows: r <= 4095
    with pytest.raises(DSLError, match="reaches 4099"):
        bounds(text.replace("rb * 4 + 3", "rb * 4 + 7"))


BY_INDEX = str(Path(__file__).parents[1] / "data" / "policy" / "rows_by_index.py")


def by_index(row: str) -> str:
    return ("kernel k(t: gm f32[B, N], idx: gm i64[K]) -> (y: gm f32[K, N]):\n"
            "    for k in parallel(K):\n"
            "        d = load(idx[k])\n"
            f"        store(y[k, :], load(t[{row}, :]))\n")


def test_a_data_dependent_index_is_bounded_by_the_index_values_drawn_at_the_real_size():
    """The table row load(idx[k]) + B // 1000 is the index itself below 1000 rows, and four rows
    past the end of the table for the largest indices the op draws at its 4096 rows."""
    with pytest.raises(DSLError) as e:
        check_kernel(by_index("d + B // 1000"), BY_INDEX, max_bytes=4 << 20, trials=2)
    err = e.value
    assert err.kind == "index error" and "real shapes" in err.message and "reaches 4099" in err.message
    assert err.span.line == 4


@pytest.mark.parametrize("row", ["d", "minimum(d + B // 1000, B - 1)", "B - 1 - d"])
def test_data_dependent_indices_inside_the_table_pass(row):
    k = parse(by_index(row))
    task = load_task(BY_INDEX)
    values = {"idx": task.real_integer_inputs()[1]}
    assert values["idx"].min() >= 0 and values["idx"].max() == 4095
    check_gm_bounds(check(k, bind(k, task.real)[0], load_chip("910B2")), values)


def test_a_loaded_index_beside_a_loop_variable_is_not_bounded_exactly():
    """idx[k] + k may stay inside the table (the two move together), so it is left to the runs."""
    k = parse(by_index("d + k"))
    task = load_task(BY_INDEX)
    check_gm_bounds(check(k, bind(k, task.real)[0], load_chip("910B2")), {"idx": task.real_integer_inputs()[1]})
