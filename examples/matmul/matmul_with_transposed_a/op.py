# MultiKernelBench 2026 (reference/matmul/matmul_with_transposed_a.py): C = A.T @ B with A stored
# f32[8192, 2048] (K rows of M) and B f32[8192, 4096] (written there as M = 1024 * 2,
# K = 4096 * 2, N = 2048 * 2).
# MKB 2026 shapes: M=2048, K=8192, N=4096
# Here: A f32[300, 650], B f32[300, 1100]: 3 x 9 = 27 output tiles of 256 x 128 (27 tiles on 24
# cube cores: 3 cores take two), short tiles on every axis (650 = 2 * 256 + 138,
# 1100 = 8 * 128 + 76, 300 = 4 * 64 + 44).
import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A.T @ B."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A.T, B)


M = 650
K = 300
N = 1100


def get_inputs():
    A = torch.randn(K, M)
    B = torch.randn(K, N)
    return [A, B]


def get_init_inputs():
    return []
