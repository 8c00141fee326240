# MultiKernelBench 2026 (reference/broadcast/clamp_broadcast.py): torch.clamp(x, min, max) with
# x f32[256, 2048] and per-column bounds min, max f32[2048] (literals in get_inputs: -2, 2).
# MKB 2026 shapes: R=256, C=2048
# Here: f32[53, 1100] (an uneven row split, a column tail), bounds drawn per column and
# sometimes crossed (min > max: torch.clamp gives max there).
import torch
import torch.nn as nn


class Model(nn.Module):
    """Clamp x between per-column bounds broadcast over the rows."""

    def __init__(self):
        super().__init__()

    def forward(self, x, min_val, max_val):
        return torch.clamp(x, min=min_val, max=max_val)


R = 53
C = 1100


def get_inputs():
    x = torch.randn(R, C) * 5
    min_val = torch.randn(C) - 1.0
    max_val = torch.randn(C) + 1.0
    return [x, min_val, max_val]


def get_init_inputs():
    return []
