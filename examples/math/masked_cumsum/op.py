# MultiKernelBench 2026 (reference/math/masked_cumsum.py): x f32[32768, 32768] and a bool mask
# of the same shape; torch.cumsum(x * mask, dim=1).
# MKB 2026 shapes: batch_size=32768, length=32768
# (MKB writes input_shape = (32768,) as a literal; here input_shape follows length.)
# Here: 53 rows of 17001 values, mask drawn as in MKB (randint(0, 2).bool()).
import torch
import torch.nn as nn


class Model(nn.Module):
    """Cumulative sum of the elements where the mask is true."""

    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x, mask):
        return torch.cumsum(x * mask, dim=self.dim)


batch_size = 53
length = 17001
input_shape = (length,)
dim = 1


def get_inputs():
    x = torch.rand(batch_size, *input_shape)
    mask = torch.randint(0, 2, x.shape).bool()
    return [x, mask]


def get_init_inputs():
    return [dim]
