# MultiKernelBench 2026 (reference/convolution/conv_depthwise_2d_square_input_square_kernel.py):
# nn.Conv2d(64, 64, 3, stride=1, padding=0, groups=64, bias=False) over x f32[16, 64, 512, 512].
# MKB 2026 shapes: batch_size=16, in_channels=64, width=512, height=512, padding=0
# Here: 2 x 3 channels of 37 x 300 with padding 1 (MKB's is 0): windows that cross the border, a
# row tail in every image (37 output rows in blocks of 27), output rows of 300 values.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, kernel_size: int, stride: int = 1, padding: int = 0, bias: bool = False):
        super(Model, self).__init__()
        self.conv2d = nn.Conv2d(in_channels, in_channels, kernel_size, stride=stride, padding=padding,
                                groups=in_channels, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv2d(x)


batch_size = 2
in_channels = 3
kernel_size = 3
width = 300
height = 37
stride = 1
padding = 1


def get_inputs():
    x = torch.rand(batch_size, in_channels, height, width)
    return [x]


def get_init_inputs():
    return [in_channels, kernel_size, stride, padding]
