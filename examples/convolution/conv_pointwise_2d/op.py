# MultiKernelBench 2026 (reference/convolution/conv_pointwise_2d.py): nn.Conv2d(64, 128,
# kernel_size=1, bias=False) over x f32[16, 64, 1024, 1024].
# MKB 2026 shapes: batch_size=16, in_channels=64, out_channels=128, width=1024, height=1024
# Here: 2 images of 70 channels, 23 x 19 pixels, 150 output channels: a K tail (70 = 64 + 6), a row
# tail (150 = 128 + 22) and a column tail (437 pixels = 256 + 181).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, bias: bool = False):
        super(Model, self).__init__()
        self.conv1d = nn.Conv2d(in_channels, out_channels, kernel_size=1, stride=1, padding=0, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv1d(x)


batch_size = 2
in_channels = 70
out_channels = 150
width = 19
height = 23


def get_inputs():
    x = torch.rand(batch_size, in_channels, height, width)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels]
