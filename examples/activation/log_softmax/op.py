# MultiKernelBench 2026 (reference/activation/log_softmax.py): x f32[4096, 393216],
# log_softmax over dim 1.
# MKB 2026 shapes: batch_size=4096, dim=393216
# Here: 11 rows of 65543 values (256 KiB per row, longer than the 192 KiB UB): randn plus a
# ramp along the row, so the running max grows from tile to tile.
import torch
import torch.nn as nn


class Model(nn.Module):
    """LogSoftmax over dim 1."""

    def __init__(self, dim: int = 1):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(x, dim=self.dim)


batch_size = 11
dim = 65543


def get_inputs():
    x = torch.randn(batch_size, dim) * 2 + torch.linspace(0.0, 16.0, dim)
    return [x]


def get_init_inputs():
    return []
