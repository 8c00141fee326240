# MultiKernelBench 2026 (reference/matmul/tall_skinny_matrix_multiplication.py): C = A @ B with a
# tall, skinny A f32[32768, 32] and a short, wide B f32[32, 32768], so C is f32[32768, 32768]
# (written there as M = 16384 * 2, N = 16 * 2; N is the inner dimension).
# MKB 2026 shapes: M=32768, N=32
# Here: A f32[650, 24] @ B f32[24, 650]: 6 x 6 = 36 output tiles of 128 x 128 (36 tiles on 24
# cube cores: 12 cores take two), short tiles on both output axes (650 = 5 * 128 + 10) and the
# inner dimension N = 24 below one 64-deep step.
import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A @ B with A tall and skinny, B short and wide."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


M = 650
N = 24


def get_inputs():
    A = torch.randn(M, N)
    B = torch.randn(N, M)
    return [A, B]


def get_init_inputs():
    return []
