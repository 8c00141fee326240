# MultiKernelBench 2026 (reference/resize/nearest_neighbor_upsample.py): F.interpolate(x,
# scale_factor=4.0, mode='nearest') of x f32[16, 128, 32, 32] (MKB writes the sizes inside
# get_inputs; here they are module constants).
# MKB 2026 shapes: batch=16, channels=128, height=32, width=32
# Here: 2 x 3 images of 7 x 9 pixels: output rows of 36 values (not a whole number of 32-byte
# blocks), images that split unevenly over the cores.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=4.0, mode='nearest')


batch = 2
channels = 3
height = 7
width = 9


def get_inputs():
    x = torch.rand(batch, channels, height, width)
    return [x]


def get_init_inputs():
    return []
