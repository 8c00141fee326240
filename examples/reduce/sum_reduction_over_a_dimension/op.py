# MultiKernelBench 2026 (reference/reduce/sum_reduction_over_a_dimension.py):
# x f32[128, 4096, 4096], torch.sum(x, dim=1, keepdim=True) -> f32[128, 1, 4096]: a reduction
# over the middle axis.
# MKB 2026 shapes: batch_size=128, dim1=4096, dim2=4096
# Here: x f32[5, 77, 2100]: 3 column blocks of 1024 per image (the last one 52 wide),
# 16 rows per tile (77 = 4 * 16 + 13, a short last tile); 15 work units over 48 cores.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Sum over one dimension, keeping it."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=self.dim, keepdim=True)


batch_size = 5
dim1 = 77
dim2 = 2100
reduce_dim = 1


def get_inputs():
    x = torch.rand(batch_size, dim1, dim2)
    return [x]


def get_init_inputs():
    return [reduce_dim]
