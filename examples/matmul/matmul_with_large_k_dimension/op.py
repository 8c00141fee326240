# MultiKernelBench 2026 (reference/matmul/matmul_with_large_k_dimension.py): C = A @ B with a
# small f32[256, 256] output and a very long inner dimension: A f32[256, 524288],
# B f32[524288, 256] (written there as K = 131072 * 4).
# MKB 2026 shapes: M=256, N=256, K=524288
# Here: A f32[200, 2000] @ B f32[2000, 420]: 4 x 7 = 28 output tiles of 64 x 64 (28 tiles on 24
# cube cores: 4 cores take two), short tiles on every axis (200 = 3 * 64 + 8, 420 = 6 * 64 + 36,
# 2000 = 7 * 256 + 208), K several times the output dims.
import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A @ B with a large K."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


M = 200
N = 420
K = 2000


def get_inputs():
    A = torch.randn(M, K)
    B = torch.randn(K, N)
    return [A, B]


def get_init_inputs():
    return []
