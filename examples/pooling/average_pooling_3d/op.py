# MultiKernelBench 2026 (reference/pooling/average_pooling_3d.py): x f32[16, 32, 128, 128, 256],
# nn.AvgPool3d(kernel_size=3, stride=2, padding=1) -> f32[16, 32, 64, 64, 128] (the padding counts
# in every average: count_include_pad, torch's default).
# MKB 2026 shapes: batch_size=16, channels=32, depth=128, height=128, width=256
# Here: x f32[2, 5, 19, 37, 70]: odd extents on every axis (the last window of each reaches
# into the padding), 18 output rows = a block and a tail.
import torch
import torch.nn as nn


class Model(nn.Module):
    """3-D average pooling."""

    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.avg_pool = nn.AvgPool3d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.avg_pool(x)


batch_size = 2
channels = 5
depth = 19
height = 37
width = 70
kernel_size = 3
stride = 2
padding = 1


def get_inputs():
    x = torch.randn(batch_size, channels, depth, height, width)
    return [x]


def get_init_inputs():
    return [kernel_size, stride, padding]
