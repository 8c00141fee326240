# MultiKernelBench 2026 (reference/convolution/conv_standard_3d_square_input_square_kernel.py):
# nn.Conv3d(3, 64, (3, 3, 3)) (stride 1, no padding, no bias) over x f32[16, 3, 64, 64, 64]
# -> y f32[16, 64, 62, 62, 62].
# MKB 2026 shapes: batch_size=16, in_channels=3, out_channels=64, kernel_size=3, depth=64, width=64, height=64
# Here: 2 volumes of 3 channels (K = 81: a K tail) at 9 x 13 x 21 into 20 channels; the output is
# 7 x 11 x 19 (1,463 voxels: a column tail on the product).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1, padding: int = 0,
                 dilation: int = 1, groups: int = 1, bias: bool = False):
        super(Model, self).__init__()
        self.conv3d = nn.Conv3d(in_channels, out_channels, (kernel_size, kernel_size, kernel_size), stride=stride,
                                padding=padding, dilation=dilation, groups=groups, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv3d(x)


batch_size = 2
in_channels = 3
out_channels = 20
kernel_size = 3
depth = 9
width = 13
height = 21


def get_inputs():
    x = torch.rand(batch_size, in_channels, depth, width, height)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
