# MultiKernelBench 2026 (reference/index/index_copy.py): x f32[8192, 1024] (zeros), indices i64[2048]
# in [0, 8192), src f32[2048, 1024]; x.index_copy(0, indices, src): row indices[k] of a copy of x
# becomes src[k].
# MKB 2026 shapes: rows=8192, cols=1024, n_idx=2048
# Here: x f32[45, 1100] random (MKB's zeros would let a kernel that drops x pass) and 67 source rows
# into 45: repeated indices are certain and about ten rows keep x; 1100 columns = a 1024 tile and a
# 76 tail; 45 and 67 rows split unevenly over 48 cores.
# Repeated indices: PyTorch's CPU index_copy copies in index order (the last source row of an index
# stays) only while it runs on one thread; above its 32768-element grain (n_idx * cols) it splits
# the copies over threads that race, and the result changes from run to run (at the MKB shape
# too). The forward therefore runs it in PyTorch's deterministic mode, which keeps index order at
# every size; the result is the one-thread result.
import torch
import torch.nn as nn


class Model(nn.Module):
    """index_copy along dim 0 (a repeated index keeps its last source row)."""

    def forward(self, x, indices, src):
        was, warn = torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
        torch.use_deterministic_algorithms(True)
        try:
            return x.index_copy(0, indices, src)
        finally:
            torch.use_deterministic_algorithms(was, warn_only=warn)


rows = 45
cols = 1100
n_idx = 67


def get_inputs():
    return [torch.randn(rows, cols), torch.randint(0, rows, (n_idx,)), torch.randn(n_idx, cols)]


def get_init_inputs():
    return []
