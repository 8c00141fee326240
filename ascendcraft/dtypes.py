"""The DSL's element types and how NumPy holds them.

bf16 has no NumPy type: bf16 values are held in float32 arrays and rounded to
bf16 (round to nearest even) after every operation, which is exact bf16 arithmetic
for the single operations the DSL performs.
"""
from __future__ import annotations

import numpy as np

NUMPY = {
    "f16": np.float16, "bf16": np.float32, "f32": np.float32,
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8, "bool": np.bool_,
}
ITEMSIZE = {"f16": 2, "bf16": 2, "f32": 4, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "u8": 1, "bool": 1}
FLOATS = frozenset({"f16", "bf16", "f32"})
INTS = frozenset({"i8", "i16", "i32", "i64", "u8"})
NUMERIC = FLOATS | INTS
ALL = tuple(NUMPY)

_FROM_NUMPY = {np.dtype(np.float16): "f16", np.dtype(np.float32): "f32", np.dtype(np.int8): "i8",
               np.dtype(np.int16): "i16", np.dtype(np.int32): "i32", np.dtype(np.int64): "i64",
               np.dtype(np.uint8): "u8", np.dtype(np.bool_): "bool"}


def from_numpy(dtype) -> str | None:
    return _FROM_NUMPY.get(np.dtype(dtype))


def round_bf16(a: np.ndarray) -> np.ndarray:
    """Round float32 values to the nearest bf16 (ties to even); NaN stays NaN."""
    a = np.asarray(a, dtype=np.float32)
    bits = a.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    out = rounded.view(np.float32)
    return np.where(np.isnan(a), a, out).astype(np.float32, copy=False)


def quantize(a, dtype: str) -> np.ndarray:
    """Hold ``a`` in the NumPy type of ``dtype``, rounding to bf16 where needed."""
    arr = np.asarray(a)
    if dtype == "bf16":
        return round_bf16(arr.astype(np.float32, copy=False))
    return arr.astype(NUMPY[dtype], copy=False)


def info(dtype: str):
    t = NUMPY[dtype]
    return np.finfo(t) if dtype in FLOATS else np.iinfo(t)


def lowest(dtype: str):
    """The identity of max: -inf for floats, the smallest value for integers, False for bool."""
    if dtype == "bool":
        return False
    return -np.inf if dtype in FLOATS else int(np.iinfo(NUMPY[dtype]).min)


def highest(dtype: str):
    if dtype == "bool":
        return True
    return np.inf if dtype in FLOATS else int(np.iinfo(NUMPY[dtype]).max)
