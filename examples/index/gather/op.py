# MultiKernelBench 2026 (reference/index/gather.py): x f32[128, 8192], idx i64[128, 4096] in
# [0, 8192); torch.gather(x, dim=1, index=idx) -> f32[128, 4096].
# MKB 2026 shapes: rows=128, cols=8192, n_idx=4096
# Here: x f32[37, 1100] (randn), idx i64[37, 2100] over the whole row: 2100 > 1100 indices per row
# make duplicates certain; 2100 = a 2048 tile and a 52-element tail; 37 rows over 48 cores.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Gather along dim 1 (torch.gather / take_along_dim)."""

    def forward(self, x, idx):
        return torch.gather(x, dim=1, index=idx)


rows = 37
cols = 1100
n_idx = 2100


def get_inputs():
    return [torch.randn(rows, cols), torch.randint(0, cols, (rows, n_idx))]


def get_init_inputs():
    return []
