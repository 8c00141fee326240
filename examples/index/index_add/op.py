# MultiKernelBench 2026 (reference/index/index_add.py): x f32[1024, 4096] (zeros), indices
# i64[8192] in [0, 1024), values f32[8192, 4096]; x.index_add(0, indices, values).
# MKB 2026 shapes: rows=1024, cols=4096, n_idx=8192
# Here: x f32[37, 1100] random (MKB's zeros would let a kernel that forgets x pass), 101 source
# rows into 37: duplicates certain, and rows of the same index land on different cores.
import torch
import torch.nn as nn


class Model(nn.Module):
    """index_add along dim 0 (duplicate indices accumulate)."""

    def forward(self, x, indices, values):
        return x.index_add(dim=0, index=indices, source=values)


rows = 37
cols = 1100
n_idx = 101


def get_inputs():
    return [torch.randn(rows, cols), torch.randint(0, rows, (n_idx,)), torch.randn(n_idx, cols)]


def get_init_inputs():
    return []
