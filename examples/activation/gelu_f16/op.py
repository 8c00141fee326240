# MultiKernelBench 2026 (reference/activation/gelu.py) with f16 tensors: the dtype is ours (MKB's
# task is f32), x f16[batch_size, dim], exact (erf) GELU.
# MKB 2026 shapes: batch_size=4096, dim=393216
# Here: 53 rows of 3000 values: one row per 4096-element tile (a short tile), 53 row blocks over
# 48 cores, so 5 cores take two.
import torch
import torch.nn as nn


class Model(nn.Module):
    """GELU (the exact, erf-based form) of a half-precision tensor."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x)


batch_size = 53
dim = 3000


def get_inputs():
    x = torch.randn(batch_size, dim, dtype=torch.float16) * 3
    return [x]


def get_init_inputs():
    return []
