# MultiKernelBench 2026 (reference/convolution/conv_standard_2d_square_input_square_kernel.py):
# AlexNet's first layer, nn.Conv2d(3, 96, kernel_size=11, stride=4, padding=2) with its bias, over
# x f32[256, 3, 224, 224] (MKB writes the 224 inside get_inputs; here they are the constants
# height and width).
# MKB 2026 shapes: batch_size=256, height=224, width=224
# Here: 2 images of 45 x 39: a 10 x 9 output, windows that cross the padding on every side.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_classes=1000):
        super(Model, self).__init__()
        self.conv1 = nn.Conv2d(in_channels=3, out_channels=96, kernel_size=11, stride=4, padding=2)

    def forward(self, x):
        x = self.conv1(x)
        return x


batch_size = 2
num_classes = 1000
height = 45
width = 39


def get_inputs():
    return [torch.rand(batch_size, 3, height, width)]


def get_init_inputs():
    return [num_classes]
