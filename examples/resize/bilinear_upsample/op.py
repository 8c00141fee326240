# MultiKernelBench 2026 (reference/resize/bilinear_upsample.py): F.interpolate(x, scale_factor=2.0,
# mode='bilinear', align_corners=False) of x f32[8, 256, 64, 64] (MKB writes the sizes inside
# get_inputs; here they are module constants).
# MKB 2026 shapes: batch=8, channels=256, height=64, width=64
# Here: 2 x 3 images of 21 x 37 pixels: 42 output rows in blocks of 32 (a tail block), output rows
# of 74 values (not a whole number of 32-byte blocks), the clamped first and last rows and columns,
# image blocks that split unevenly over the cores.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=2.0, mode='bilinear', align_corners=False)


batch = 2
channels = 3
height = 21
width = 37


def get_inputs():
    x = torch.rand(batch, channels, height, width)
    return [x]


def get_init_inputs():
    return []
