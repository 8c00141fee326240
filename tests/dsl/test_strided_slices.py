"""Strided slices ``x[a:b:s]`` of GM regions and of tiles: parser, printer, checker, interpreter.
The lowering's side is tests/lowering/test_strided_lowering.py."""
import numpy as np
import pytest

from ascendcraft import dtypes as D
from ascendcraft.chips import load_chip
from ascendcraft.dsl import ast as A
from ascendcraft.dsl.checker import Binding, check
from ascendcraft.dsl.interpreter import interpret
from ascendcraft.dsl.parser import parse
from ascendcraft.dsl.printer import print_kernel
from ascendcraft.errors import DSLError

CHIP = load_chip("910B2")


def _run(src, dims, attrs, arrays):
    k = parse(src, "k.dsl")
    ck = check(k, Binding(dims, attrs), CHIP)
    gm = dict(arrays)
    for p in k.outputs:
        gm[p.name] = np.full(ck.params[p.name].shape, np.nan if p.type.dtype.startswith("f") else -7,
                             D.NUMPY[p.type.dtype])
    interpret(ck, gm)
    return gm, ck


def test_steps_parse_and_print_back():
    src = """kernel k(x: gm f32[N, W]) -> (y: gm f32[N, W]):
    for n in parallel(N):
        t = load(x[n, 1:W:3])
        u = load(x[n, ::2])
        v = t[0:8:s]
        store(y[n, 0:W:3], t)
"""
    k = parse(src)
    assert parse(print_kernel(k)) == k
    subs = k.body[0].body[1].value.src.subscripts
    assert subs[1] == A.Slice(None, None, step=A.Int(2)) and subs[1].stepped()
    assert not A.Slice(A.Int(0), None, step=A.Int(1)).stepped() and not A.Slice(None, None).stepped()
    assert "x[n, ::2]" in print_kernel(k) and "y[n, 0:W:3]" in print_kernel(k)


# a strided convolution's tap: the input columns q - P, q - P + S, ... of a padded row, every one
# past either edge of the row a 0.0 (pad=), the stride an attribute
CONV_ROW = """kernel taps(x: gm f32[N, W], stride: i32, padding: i32) -> (y: gm f32[N, K, WO]):
    const KW = 3
    for n in parallel(N):
        for kw in range(KW):
            q = kw - padding
            store(y[n, kw, :], load(x[n, q:q + stride * WO:stride], pad=0.0))
"""


@pytest.mark.parametrize("stride,padding,w", [(2, 1, 11), (3, 2, 10), (4, 0, 9), (1, 1, 7)])
def test_a_padded_strided_load_takes_every_step_th_position_with_its_halo(stride, padding, w):
    wo = (w + 2 * padding - 3) // stride + 1
    x = np.arange(2 * w, dtype=np.float32).reshape(2, w) + 1
    out, ck = _run(CONV_ROW, {"N": 2, "W": w, "K": 3, "WO": wo}, {"stride": stride, "padding": padding}, {"x": x})
    padded = np.pad(x, ((0, 0), (padding, padding + stride * wo)))
    want = np.stack([padded[:, kw:kw + stride * wo:stride] for kw in range(3)], axis=1)
    np.testing.assert_array_equal(out["y"], want)


def test_an_unpadded_step_clamps_then_steps_and_its_tile_has_cdiv_elements():
    src = """kernel k(x: gm f32[N, W]) -> (y: gm f32[N, WO]):
    for n in parallel(N):
        t = load(x[n, 1:W + 5:3])
        store(y[n, :], t)
"""
    x = np.random.default_rng(0).standard_normal((3, 20)).astype(np.float32)
    out, ck = _run(src, {"N": 3, "W": 20, "WO": 7}, {}, {"x": x})
    np.testing.assert_array_equal(out["y"], x[:, 1::3])
    t = [v for k, v in ck.expr_types.items() if getattr(v, "shape", None) == (7,)]
    assert t, "the load's tile is [cdiv(19, 3)] = [7]"


def test_strided_stores_interleave_and_tile_slices_step_rows_and_columns():
    src = """kernel k(x: gm i32[N, W]) -> (y: gm i32[N, W2], z: gm i32[NH, WH]):
    for n in parallel(N):
        t = load(x[n, :])
        store(y[n, 0:W2:2], t)
        store(y[n, 1:W2:2], t * 2)
    for i in parallel(1):
        u = load(x[:, :])
        store(z[:, :], u[0:N:2, 1:W:2])
"""
    x = np.arange(5 * 6, dtype=np.int32).reshape(5, 6)
    out, _ = _run(src, {"N": 5, "W": 6, "W2": 12, "NH": 3, "WH": 3}, {}, {"x": x})
    want = np.empty((5, 12), np.int32)
    want[:, 0::2], want[:, 1::2] = x, 2 * x
    np.testing.assert_array_equal(out["y"], want)
    np.testing.assert_array_equal(out["z"], x[0::2, 1::2])


def test_a_strided_store_of_a_full_length_value_writes_the_positions_inside():
    # the value has cdiv(stop - start, step) elements, as a padded load of that slice has; only
    # the positions start + k * step inside the tensor are written (here 1, 4, 7)
    src = """kernel k(x: gm f32[W]) -> (y: gm f32[W]):
    for i in parallel(1):
        store(y[:], zeros((W,), f32))
        store(y[-5:W:3], load(x[-5:W:3], pad=0.0) + 1.0)
"""
    x = np.arange(9, dtype=np.float32)
    out, _ = _run(src, {"W": 9}, {}, {"x": x})
    want = np.zeros(9, np.float32)
    want[1::3] = x[1::3] + 1
    np.testing.assert_array_equal(out["y"], want)


@pytest.mark.parametrize("step,message", [
    ("i", "a slice step must be known before the kernel runs"),
    ("0", "a slice step must be positive, got 0"),
    ("1 - 3", "a slice step must be positive, got -2"),
    ("0.5", "a slice step"),
])
def test_a_step_is_a_positive_integer_known_before_the_run(step, message):
    src = f"""kernel k(x: gm f32[N, W]) -> (y: gm f32[N, W]):
    for i in parallel(N):
        store(y[i, 0:W:{step}], load(x[i, 0:W:{step}]))
"""
    with pytest.raises(DSLError) as info:
        check(parse(src, "k.dsl"), Binding({"N": 4, "W": 8}, {}), CHIP)
    assert message in str(info.value) and "k.dsl:3:" in str(info.value)
