# MultiKernelBench 2026 (reference/index/masked_fill.py): x f32[64, 512, 512], mask bool[64, 512, 512]
# (about half True); x.masked_fill(mask, -inf).
# MKB 2026 shapes: batch=64, rows=512, cols=512
# Here: x f32[3, 37, 1100] (randn) with a random bool mask; 1100 columns = one 1100-element tile per
# row; 111 rows over 48 cores.
import torch
import torch.nn as nn


class Model(nn.Module):
    """masked_fill with -inf."""

    def forward(self, x, mask):
        return x.masked_fill(mask, float('-inf'))


batch = 3
rows = 37
cols = 1100


def get_inputs():
    return [torch.randn(batch, rows, cols), torch.randint(0, 2, (batch, rows, cols), dtype=torch.bool)]


def get_init_inputs():
    return []
