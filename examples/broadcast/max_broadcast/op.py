# MultiKernelBench 2026 (reference/broadcast/max_broadcast.py): torch.maximum(a, b) with
# a f32[16, 1, 1024] and b f32[1, 256, 1] (literals in get_inputs): an outer broadcast into
# f32[16, 256, 1024] -- 64 MiB written from 68 KiB read.
# MKB 2026 shapes: A=16, B=256, C=1024
# Here: a f32[3, 1, 1100], b f32[1, 37, 1]: 37 rows of b in blocks (a short last one) and a
# column tail of a; signed values with ties.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Element-wise maximum of a [A, 1, C] and a [1, B, 1] tensor, broadcast to [A, B, C]."""

    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.maximum(a, b)


A = 3
B = 37
C = 1100


def get_inputs():
    a = torch.randint(-4, 5, (A, 1, C)).float()
    b = torch.randint(-4, 5, (1, B, 1)).float()
    return [a, b]


def get_init_inputs():
    return []
