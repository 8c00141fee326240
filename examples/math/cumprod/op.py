# MultiKernelBench 2026 (reference/math/cumprod.py): x f32[32768, 32768], torch.cumprod over dim 1.
# MKB 2026 shapes: batch_size=32768, length=32768
# (MKB writes input_shape = (32768,) as a literal; here input_shape follows length.)
# Here: 53 rows of 17001 values. MKB draws x from U[0, 1), so every row's product underflows
# to 0 within a few hundred elements and a kernel that drops the carry between tiles still
# passes; here x is 1 + U(-0.01, 0.01), so products stay near 1 along the whole row.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Cumulative product along a dimension."""

    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.cumprod(x, dim=self.dim)


batch_size = 53
length = 17001
input_shape = (length,)
dim = 1


def get_inputs():
    return [1.0 + (torch.rand(batch_size, *input_shape) - 0.5) * 0.02]


def get_init_inputs():
    return [dim]
