# MultiKernelBench 2026 (reference/index/index_select.py): x f32[256, 8192], indices i64[2048] in
# [0, 8192); torch.index_select(x, dim=1, index=indices) -> f32[256, 2048].
# MKB 2026 shapes: rows=256, cols=8192, n_idx=2048
# Here: x f32[101, 300] (randn), 700 indices into 300 columns (repeats certain); 101 rows split
# unevenly over 48 cores.
import torch
import torch.nn as nn


class Model(nn.Module):
    """index_select along dim 1 (the same columns picked from every row)."""

    def forward(self, x, indices):
        return torch.index_select(x, dim=1, index=indices)


rows = 101
cols = 300
n_idx = 700


def get_inputs():
    return [torch.randn(rows, cols), torch.randint(0, cols, (n_idx,))]


def get_init_inputs():
    return []
