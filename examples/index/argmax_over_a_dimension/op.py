# MultiKernelBench 2026 (reference/index/argmax_over_a_dimension.py): x f32[128, 4096, 4095],
# torch.argmax(x, dim=1) -> i64[128, 4095].
# MKB 2026 shapes: batch_size=128, dim1=4096, dim2=4095
# Here: x f32[5, 37, 1100] of small whole numbers (0..7), so every column has ties and a kernel that
# keeps the last maximum (>= instead of >) or drops a row fails; 1100 columns = a 1024-wide block and a
# 76-wide tail; 10 work units over 48 cores.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Argmax over one dimension (int64 indices, the first of equal maxima)."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.argmax(x, dim=self.dim)


batch_size = 5
dim1 = 37
dim2 = 1100


def get_inputs():
    return [torch.randint(0, 8, (batch_size, dim1, dim2)).float()]


def get_init_inputs():
    return [1]
