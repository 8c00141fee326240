# MultiKernelBench 2026 (reference/pooling/max_pooling_3d.py): x f32[16, 32, 128, 128, 128],
# nn.MaxPool3d(kernel_size=3, stride=2, padding=1) -> f32[16, 32, 64, 64, 64].
# MKB 2026 shapes: batch_size=16, channels=32, dim1=128, dim2=128, dim3=128
# Here: x f32[2, 5, 19, 37, 70]: odd extents on every axis (the last window of each reaches
# into the padding), 18 output rows = a block of 16 and a tail of 2.
import torch
import torch.nn as nn


class Model(nn.Module):
    """3-D max pooling."""

    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.maxpool = nn.MaxPool3d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.maxpool(x)


batch_size = 2
channels = 5
dim1 = 19
dim2 = 37
dim3 = 70
kernel_size = 3
stride = 2
padding = 1


def get_inputs():
    x = torch.randn(batch_size, channels, dim1, dim2, dim3)
    return [x]


def get_init_inputs():
    return [kernel_size, stride, padding]
