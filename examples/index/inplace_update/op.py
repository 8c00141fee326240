# MultiKernelBench 2026 (reference/index/inplace_update.py): x f32[10000, 1024] (zeros), idx i64[2048]
# in [0, 10000), value f32[2048, 1024]; x[idx] = value (index_put_ of whole rows), returning x.
# MKB 2026 shapes: rows=10000, cols=1024, n_idx=2048
# Here: x f32[53, 1100] random (MKB's zeros would let a kernel that drops x pass) and 77 value rows
# into 53: repeated indices are certain and about twelve rows keep x; 1100 columns = a 1024 tile and
# a 76 tail; 53 and 77 rows split unevenly over 48 cores.
# Repeated indices: PyTorch's CPU index_put_ writes them in index order (the last value row of an
# index stays) only on one thread; above its 32768-element grain it splits the writes over threads
# that race, so the reference would change from run to run (at the MKB shape too). The forward
# runs in PyTorch's deterministic mode, which keeps index order at every size.
import torch
import torch.nn as nn


class Model(nn.Module):
    """x[idx] = value along dim 0, in place (a repeated index keeps its last value row)."""

    def forward(self, x, idx, value):
        was, warn = torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
        torch.use_deterministic_algorithms(True)
        try:
            x[idx] = value
        finally:
            torch.use_deterministic_algorithms(was, warn_only=warn)
        return x


rows = 53
cols = 1100
n_idx = 77


def get_inputs():
    return [torch.randn(rows, cols), torch.randint(0, rows, (n_idx,)), torch.randn(n_idx, cols)]


def get_init_inputs():
    return []
