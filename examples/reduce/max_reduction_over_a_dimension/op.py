# MultiKernelBench 2026 (reference/reduce/max_reduction_over_a_dimension.py):
# x f32[128, 4096, 4096], torch.max(x, dim=1)[0] -> f32[128, 4096].
# MKB 2026 shapes: batch_size=128, dim1=4096, dim2=4096
# Here: x f32[7, 103, 1100] (randn): 2 column blocks per image (1024 + 76), 16-row tiles with a
# 7-row tail; 14 work units over 48 cores.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Max over one dimension (values only)."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.max(x, dim=self.dim)[0]


batch_size = 7
dim1 = 103
dim2 = 1100


def get_inputs():
    x = torch.randn(batch_size, dim1, dim2)
    return [x]


def get_init_inputs():
    return [1]
