# MultiKernelBench 2026 (reference/math/cumsum_reverse.py): x f32[32768, 32768];
# torch.cumsum(x.flip(1), dim=1).flip(1) (suffix sums).
# MKB 2026 shapes: batch_size=32768, length=32768
# (MKB writes input_shape = (32768,) as a literal; here input_shape follows length.)
# Here: 53 rows of 16385 values (two full 8192 tiles and a 1-element tile at the row end).
import torch
import torch.nn as nn


class Model(nn.Module):
    """Reverse cumulative sum (suffix sum) along a dimension."""

    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.cumsum(x.flip(self.dim), dim=self.dim).flip(self.dim)


batch_size = 53
length = 16385
input_shape = (length,)
dim = 1


def get_inputs():
    return [torch.rand(batch_size, *input_shape)]


def get_init_inputs():
    return [dim]
