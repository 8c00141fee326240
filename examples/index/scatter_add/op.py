# MultiKernelBench 2026 (reference/index/scatter_add.py): x f32[32, 4096] (zeros), idx i64[32, 1024]
# in [0, 4096), updates f32[32, 1024]; x.scatter_add(dim=1, index=idx, src=updates).
# MKB 2026 shapes: rows=32, cols=4096, n_idx=1024
# Here: x f32[37, 300] random (MKB's zeros would let a kernel that drops x pass), 700 indices per row
# into 300 columns (repeats certain: they must all be added), a 2048-index tile per row; 37 rows
# over 48 cores.
import torch
import torch.nn as nn


class Model(nn.Module):
    """scatter_add along dim 1 (repeated indices accumulate)."""

    def forward(self, x, idx, updates):
        return x.scatter_add(dim=1, index=idx, src=updates)


rows = 37
cols = 300
n_idx = 700


def get_inputs():
    return [torch.randn(rows, cols), torch.randint(0, cols, (rows, n_idx)), torch.randn(rows, n_idx)]


def get_init_inputs():
    return []
