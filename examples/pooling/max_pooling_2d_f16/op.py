# MultiKernelBench 2026 (reference/pooling/max_pooling_2d.py) with f16 tensors (the dtype is ours;
# MKB's task is f32): x f16[32, 64, 512, 512],
# nn.MaxPool2d(kernel_size=4, stride=1, padding=1) -> f16[32, 64, 511, 511].
# MKB 2026 shapes: batch_size=32, channels=64, height=512, width=512
# Here: x f16[2, 27, 45, 300], same pooling: 299-wide output rows, 27 output rows per tile,
# so 44 output rows = a full tile and a 17-row one; 2 * 27 * 2 = 108 tiles over 48 cores.
import torch
import torch.nn as nn


class Model(nn.Module):
    """2-D max pooling of a half-precision tensor."""

    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.maxpool = nn.MaxPool2d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.maxpool(x)


batch_size = 2
channels = 27
height = 45
width = 300
kernel_size = 4
stride = 1
padding = 1


def get_inputs():
    x = torch.randn(batch_size, channels, height, width, dtype=torch.float16)
    return [x]


def get_init_inputs():
    return [kernel_size, stride, padding]
