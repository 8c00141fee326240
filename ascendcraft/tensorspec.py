"""Tensor specs: the shape and DSL dtype of a tensor, and the dtypes Ascend kernels take."""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from .dtypes import ITEMSIZE
from .errors import UserError

TORCH_DTYPES = {
    torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32",
    torch.int8: "i8", torch.int16: "i16", torch.int32: "i32", torch.int64: "i64",
    torch.uint8: "u8", torch.bool: "bool",
}


def dtype_name(dtype: torch.dtype, what: str = "a tensor") -> str:
    """The DSL name of a torch dtype; UserError for dtypes Ascend kernels do not take."""
    name = TORCH_DTYPES.get(dtype)
    if name is not None:
        return name
    if dtype == torch.float64:
        raise UserError(f"{what} is float64, and float64 is not supported on Ascend",
                        hint="use float32 in the task file (e.g. torch.rand(...) without dtype=torch.float64)")
    if dtype.is_complex:
        raise UserError(f"{what} is {dtype}, and complex dtypes are not supported on Ascend")
    raise UserError(f"{what} has dtype {dtype}, which ascendcraft does not support",
                    hint="supported: float16, bfloat16, float32, int8, int16, int32, int64, uint8, bool")


@dataclass(frozen=True)
class TensorSpec:
    shape: tuple[int, ...]
    dtype: str  # DSL dtype name

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.numel * ITEMSIZE[self.dtype]

    def __str__(self) -> str:
        return f"{self.dtype}[{', '.join(map(str, self.shape))}]"

    @classmethod
    def of(cls, t: torch.Tensor, what: str = "a tensor") -> "TensorSpec":
        return cls(tuple(int(d) for d in t.shape), dtype_name(t.dtype, what))

def fmt_bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"
