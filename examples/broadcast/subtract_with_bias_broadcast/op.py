# MultiKernelBench 2026 (reference/broadcast/subtract_with_bias_broadcast.py): x f32[8, 4096]
# - bias f32[4096], the bias a row vector broadcast over the rows.
# MKB 2026 shapes: R=8, C=4096
# Here: x f32[53, 1100], bias f32[1100]: 5 column blocks of 256 (the last a 76-wide tail, not a
# multiple of the 8-float block) times row chunks of 32 and 21 (53 rows split unevenly); signed
# x and bias.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Subtract a per-column bias from every row of x."""

    def __init__(self):
        super().__init__()

    def forward(self, x, bias):
        return x - bias


R = 53
C = 1100


def get_inputs():
    x = torch.randn(R, C)
    bias = torch.randn(C)
    return [x, bias]


def get_init_inputs():
    return []
