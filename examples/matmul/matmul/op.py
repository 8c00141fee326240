# MultiKernelBench 2026 (reference/matmul/standard_matrix_multiplication.py): A f32[2048, 8192] @
# B f32[8192, 4096] (written there as M = 1024 * 2, K = 4096 * 2, N = 2048 * 2).
# MKB 2026 shapes: M=2048, K=8192, N=4096
# Here: A f32[700, 700] @ B f32[700, 530]: 6 x 3 = 18 output tiles of 128 x 256, with short
# tiles on every axis (700 = 5 * 128 + 60 = 10 * 64 + 60, 530 = 2 * 256 + 18).
import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A @ B."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


M = 700
K = 700
N = 530


def get_inputs():
    A = torch.rand(M, K)
    B = torch.rand(K, N)
    return [A, B]


def get_init_inputs():
    return []
