# MultiKernelBench 2026 (reference/math/cumsum.py): x f32[32768, 32768], torch.cumsum over dim 1.
# MKB 2026 shapes: batch_size=32768, length=32768
# (MKB writes input_shape = (32768,) as a literal and names the scan axis `dim`; here the
# row length is `length` and input_shape follows it.)
# Here: 53 rows (uneven over 48 cores) of 17001 values (two full 8192 tiles and a short one).
import torch
import torch.nn as nn


class Model(nn.Module):
    """Cumulative sum along a dimension."""

    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.cumsum(x, dim=self.dim)


batch_size = 53
length = 17001
input_shape = (length,)
dim = 1


def get_inputs():
    return [torch.rand(batch_size, *input_shape)]


def get_init_inputs():
    return [dim]
