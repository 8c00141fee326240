# MultiKernelBench 2026 (reference/broadcast/add_bias_four_dim_broadcast.py): x f32[8, 512, 32, 32]
# + bias f32[512] viewed as [1, 512, 1, 1] (literals in get_inputs).
# MKB 2026 shapes: N=8, C=512, H=32, W=32
# Here: x f32[2, 21, 9, 37], bias f32[21]: 42 (image, channel) planes over the cores (uneven), 37-wide rows
# (not a multiple of the 8-float block).
import torch
import torch.nn as nn


class Model(nn.Module):
    """Add a per-channel bias to an NCHW tensor."""

    def __init__(self):
        super().__init__()

    def forward(self, x, bias):
        return x + bias.view(1, -1, 1, 1)


N = 2
C = 21
H = 9
W = 37


def get_inputs():
    x = torch.randn(N, C, H, W)
    bias = torch.randn(C)
    return [x, bias]


def get_init_inputs():
    return []
