# MultiKernelBench 2026 (reference/broadcast/elmentwise_mul_broadcast.py): a f32[4, 1, 2048]
# * b f32[1, 4, 2048], an outer broadcast over the first two axes into f32[4, 4, 2048] (the
# last axis shared).
# MKB 2026 shapes: A=4, B=4, C=2048
# Here: a f32[3, 1, 1100], b f32[1, 53, 1100]: b's 53 rows in blocks of 8 (a short last one of
# 5) times 7 column blocks of 168 (a 92-wide tail), 49 units split unevenly over the 48 cores;
# signed a and b.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Element-wise product of a [A, 1, C] and a [1, B, C] tensor, broadcast to [A, B, C]."""

    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a * b


A = 3
B = 53
C = 1100


def get_inputs():
    a = torch.randn(A, 1, C)
    b = torch.randn(1, B, C)
    return [a, b]


def get_init_inputs():
    return []
