# MultiKernelBench 2026 (reference/fuse/conv2d_gelu_global_avg_pool.py): a 3x3 nn.Conv2d (with bias,
# stride 1, no padding), GELU, then the mean over each output image (adaptive_avg_pool2d to 1 x 1),
# x f32[128, 8, 256, 256] -> y f32[128, 64].
# MKB 2026 shapes: batch_size=128, in_channels=8, out_channels=64, height=256, width=256, kernel_size=3
# Here: 2 images of 5 channels, 29 x 47 pixels, into 20 output channels: 27 output rows (a row tail
# in blocks), K = 5 * 3 * 3 + 1 = 46 (shorter than one K step), 1,215 pixels per image (tails on
# every product tile and on the mean's chunks).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)

    def forward(self, x):
        x = self.conv(x)
        x = torch.nn.functional.gelu(x)
        x = torch.nn.functional.adaptive_avg_pool2d(x, 1)
        x = x.squeeze(-1).squeeze(-1)
        return x


batch_size = 2
in_channels = 5
out_channels = 20
height = 29
width = 47
kernel_size = 3


def get_inputs():
    return [torch.rand(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
