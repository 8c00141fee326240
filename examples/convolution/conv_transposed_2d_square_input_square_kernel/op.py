# MultiKernelBench 2026 (reference/convolution/conv_transposed_2d_square_input_square_kernel.py):
# nn.ConvTranspose2d(64, 64, 3) (stride 1, no padding, no bias) over x f32[8, 64, 1024, 1024]
# -> y f32[8, 64, 1026, 1026].
# MKB 2026 shapes: batch_size=8, in_channels=64, out_channels=64, kernel_size=3, height=1024, width=1024
# Here: 2 images of 11 channels (K = 99: a K tail) and 21 x 37 pixels into 20 channels; the output
# is 23 x 39 (897 pixels: a column tail on the product; 23 rows: a tail of the 8-row blocks).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1, padding: int = 0,
                 output_padding: int = 0, groups: int = 1, bias: bool = False):
        super(Model, self).__init__()
        self.conv_transpose2d = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride,
                                                   padding=padding, output_padding=output_padding, groups=groups,
                                                   bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv_transpose2d(x)


batch_size = 2
in_channels = 11
out_channels = 20
kernel_size = 3
height = 21
width = 37


def get_inputs():
    x = torch.rand(batch_size, in_channels, height, width)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
