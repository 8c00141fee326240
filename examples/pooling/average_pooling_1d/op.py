# MultiKernelBench 2026 (reference/pooling/average_pooling_1d.py): x f32[64, 128, 65536],
# nn.AvgPool1d(kernel_size=8, stride=1, padding=4) (padding counted) -> f32[64, 128, 65537].
# MKB 2026 shapes: batch_size=64, in_channels=128, input_length=65536
# Here: x f32[3, 37, 9000], same pooling: output rows of 9001, 8192 outputs per tile, so every
# row has a full tile and a short one; 3 * 37 * 2 = 222 tiles over 48 cores.
import torch
import torch.nn as nn


class Model(nn.Module):
    """1-D average pooling."""

    def __init__(self, kernel_size: int, stride: int = 1, padding: int = 0):
        super().__init__()
        self.avg_pool = nn.AvgPool1d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.avg_pool(x)


batch_size = 3
in_channels = 37
input_length = 9000
kernel_size = 8
stride = 1
padding = 4


def get_inputs():
    x = torch.rand(batch_size, in_channels, input_length)
    return [x]


def get_init_inputs():
    return [kernel_size, stride, padding]
