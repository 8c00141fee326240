# MultiKernelBench 2026 (reference/matmul/matmul_with_small_k_dimension.py): A f32[32768, 64]
# @ B f32[64, 32768].
# MKB 2026 shapes: M=32768, N=32768, K=64
# Here: A f32[300, 20] @ B f32[20, 270]: 3 x 3 output tiles of 128 x 128 with short tiles on
# both axes (300 = 2 * 128 + 44, 270 = 2 * 128 + 14), K = 20 below one 64-deep step.
import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A @ B with a small K."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


M = 300
N = 270
K = 20


def get_inputs():
    A = torch.rand(M, K)
    B = torch.rand(K, N)
    return [A, B]


def get_init_inputs():
    return []
