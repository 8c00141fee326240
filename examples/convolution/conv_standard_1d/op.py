# MultiKernelBench 2026 (reference/convolution/conv_standard_1d.py): nn.Conv1d(64, 128, 3) (stride 1,
# no padding, no bias) over x f32[32, 64, 131072] -> y f32[32, 128, 131070].
# MKB 2026 shapes: batch_size=32, in_channels=64, out_channels=128, kernel_size=3, length=131072
# Here: 2 sequences of 60 channels (each tap's K, not a multiple of the cube's 8) and 10,000 steps
# into 150 channels (a row tail), 9,998 outputs per channel (a column tail; the layout in blocks of
# 128 steps, the last of 16).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1, padding: int = 0,
                 dilation: int = 1, groups: int = 1, bias: bool = False):
        super(Model, self).__init__()
        self.conv1d = nn.Conv1d(in_channels, out_channels, kernel_size, stride=stride, padding=padding,
                                dilation=dilation, groups=groups, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv1d(x)


batch_size = 2
in_channels = 60
out_channels = 150
kernel_size = 3
length = 10000


def get_inputs():
    x = torch.rand(batch_size, in_channels, length)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
