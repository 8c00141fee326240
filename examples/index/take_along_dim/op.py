# MultiKernelBench 2026 (reference/index/take_along_dim.py): x f32[128, 8192], idx i64[128, 4096] in
# [0, 8192); torch.take_along_dim(x, idx, dim=1) -> f32[128, 4096].
# MKB 2026 shapes: rows=128, cols=8192, n_idx=4096
# Here: x f32[53, 700] (randn, signed), idx i64[53, 2500] over the whole row: 2500 > 700 picks per row
# make repeats certain, and the first and last columns are forced into every row so both ends of the
# row are read; 2500 = one 2048-index tile and a 452 tail; 53 rows over 48 cores (5 cores take two).
import torch
import torch.nn as nn


class Model(nn.Module):
    """take_along_dim along dim 1 (idx of x's rank: out[r, k] = x[r, idx[r, k]])."""

    def forward(self, x, idx):
        return torch.take_along_dim(x, idx, dim=1)


rows = 53
cols = 700
n_idx = 2500


def get_inputs():
    idx = torch.randint(0, cols, (rows, n_idx))
    idx[:, 0] = cols - 1
    idx[:, -1] = 0
    return [torch.randn(rows, cols), idx]


def get_init_inputs():
    return []
