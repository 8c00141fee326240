# MultiKernelBench 2026 (reference/broadcast/add_bias_broadcast.py): x f32[4, 2048] + bias, a
# 0-d f32 tensor (the literal 3.1415 in get_inputs) broadcast to every element.
# MKB 2026 shapes: R=4, C=2048
# Here: x f32[53, 1100] (53 rows split unevenly over the 48 cores, a column tail that is not a
# multiple of the 8-float block) and a signed 0-d bias drawn per trial.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Add a 0-d bias tensor to every element of x."""

    def __init__(self):
        super().__init__()

    def forward(self, x, bias):
        return x + bias


R = 53
C = 1100


def get_inputs():
    x = torch.randn(R, C)
    bias = torch.randn(())
    return [x, bias]


def get_init_inputs():
    return []
