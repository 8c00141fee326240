# MultiKernelBench 2026 (reference/matmul/square_matrix_multiplication.py): C = A @ B of two
# square f32[4096, 4096] matrices (written there as N = 2048 * 2).
# MKB 2026 shapes: N=4096
# Here: A, B f32[777, 777]: 4 x 7 = 28 output tiles of 256 x 128 (28 tiles on 24 cube cores:
# 4 cores take two), short tiles on every axis (777 = 3 * 256 + 9 = 6 * 128 + 9 = 12 * 64 + 9).
import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A @ B, both N x N."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


N = 777


def get_inputs():
    A = torch.randn(N, N)
    B = torch.randn(N, N)
    return [A, B]


def get_init_inputs():
    return []
