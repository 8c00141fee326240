# MultiKernelBench 2026 (reference/index/argmin_over_a_dimension.py): x f32[128, 4096, 4095],
# torch.argmin(x, dim=1) -> i64[128, 4095] (the first of equal minima).
# MKB 2026 shapes: batch_size=128, dim1=4096, dim2=4095, dim=1
# Here: x f32[3, 77, 700] of small signed whole numbers (-4..3), so every column has ties and a kernel
# that keeps the last minimum (<= instead of <) or skips a row chunk fails; 77 rows = two 32-row chunks
# and a 13-row tail; 700 columns = two 256-wide blocks and a 188-wide tail; 27 first-phase units and
# 9 second-phase units over 48 cores.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Argmin over one dimension (int64 indices, the first of equal minima)."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.argmin(x, dim=self.dim)


batch_size = 3
dim1 = 77
dim2 = 700
dim = 1


def get_inputs():
    return [torch.randint(-4, 4, (batch_size, dim1, dim2)).float()]


def get_init_inputs():
    return [dim]
