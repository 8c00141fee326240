# MultiKernelBench 2026 (reference/index/scatter.py): x f32[64, 8192] (zeros), idx i64[64, 4096] in
# [0, 8192), updates f32[64, 4096]; x.scatter(dim=1, index=idx, src=updates) -> f32[64, 8192].
# MKB 2026 shapes: rows=64, cols=8192, n_idx=4096
# Here: x f32[53, 300] random (MKB's zeros would let a kernel that drops x pass) and 2300 indices
# per row into 300 columns, so every column is hit several times; PyTorch's CPU kernel writes repeats
# in index order (the last one stays), which the DSL's scatter follows, so a kernel that loses the
# order between index tiles fails. 2300 = a 2048-index tile and a 252 tail; 53 rows over 48 cores
# (5 cores take two). Some columns may be missed and keep x.
import torch
import torch.nn as nn


class Model(nn.Module):
    """scatter along dim 1 (a repeated index keeps the last update in index order)."""

    def forward(self, x, idx, updates):
        return x.scatter(dim=1, index=idx, src=updates)


rows = 53
cols = 300
n_idx = 2300


def get_inputs():
    return [torch.randn(rows, cols), torch.randint(0, cols, (rows, n_idx)), torch.randn(rows, n_idx)]


def get_init_inputs():
    return []
