# MultiKernelBench 2026 (reference/activation/gelu.py): x f32[4096, 393216], exact (erf) GELU.
# MKB 2026 shapes: batch_size=4096, dim=393216
# Here: 53 rows of 3000 values: two whole rows per 8192-element tile, 27 row blocks over 48
# cores, the last block a single row.
import torch
import torch.nn as nn


class Model(nn.Module):
    """GELU (the exact, erf-based form)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x)


batch_size = 53
dim = 3000


def get_inputs():
    x = torch.randn(batch_size, dim) * 3
    return [x]


def get_init_inputs():
    return []
