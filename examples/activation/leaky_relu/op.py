# MultiKernelBench 2026 (reference/activation/leaky_relu.py): x f32[4096, 393216],
# negative_slope 0.01 (the default).
# MKB 2026 shapes: batch_size=4096, dim=393216
# Here: 53 rows of 9001 values (53 rows on 48 cores; rows not a multiple of the tile), randn
# inputs so both branches are taken, and a non-default slope passed to Model.__init__.
import torch
import torch.nn as nn


class Model(nn.Module):
    """LeakyReLU with a configurable negative slope."""

    def __init__(self, negative_slope: float = 0.01):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.leaky_relu(x, negative_slope=self.negative_slope)


batch_size = 53
dim = 9001
slope = 0.2


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [slope]
