# MultiKernelBench 2026 (reference/matmul/matmul_with_transposed_b.py): C = A @ B.T with
# A f32[2048, 8192] and B stored f32[4096, 8192] (N rows of K; written there as M = 1024 * 2,
# K = 4096 * 2, N = 2048 * 2).
# MKB 2026 shapes: M=2048, K=8192, N=4096
# Here: A f32[520, 333], B f32[1290, 333]: 3 x 11 = 33 output tiles of 256 x 128 (33 tiles on 24
# cube cores: 9 cores take two), short tiles on every axis (520 = 2 * 256 + 8,
# 1290 = 10 * 128 + 10, 333 = 5 * 64 + 13).
import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A @ B.T."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B.T)


M = 520
K = 333
N = 1290


def get_inputs():
    A = torch.randn(M, K)
    B = torch.randn(N, K)
    return [A, B]


def get_init_inputs():
    return []
