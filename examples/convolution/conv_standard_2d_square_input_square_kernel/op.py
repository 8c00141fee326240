# MultiKernelBench 2026 (reference/convolution/conv_standard_2d_square_input_square_kernel.py):
# AlexNet's first layer, nn.Conv2d(3, 96, kernel_size=11, stride=4, padding=2) with bias, over
# x f32[256, 3, 224, 224] -> y f32[256, 96, 55, 55].
# MKB 2026 shapes: batch_size=256
# Here: 2 images (the layer's own 224 x 224 input, 3 -> 96 channels): 55 output rows in blocks of
# 16 (a row tail), the padding on all four sides, K = 3 * 11 * 11 + 1 = 364 (a K tail of 44).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_classes=1000):
        super(Model, self).__init__()
        self.conv1 = nn.Conv2d(in_channels=3, out_channels=96, kernel_size=11, stride=4, padding=2)

    def forward(self, x):
        return self.conv1(x)


batch_size = 2
num_classes = 1000


def get_inputs():
    return [torch.rand(batch_size, 3, 224, 224)]


def get_init_inputs():
    return [num_classes]
