# MultiKernelBench 2026 (reference/matmul/matmul_with_transposed_both.py): A.T @ B.T with
# A f32[8192, 2048] and B f32[4096, 8192].
# MKB 2026 shapes: M=2048, K=8192, N=4096
# Here: A f32[300, 400], B f32[530, 300]: 4 x 3 output tiles of 128 x 256, short tiles on every
# axis (400 = 3 * 128 + 16, 300 = 4 * 64 + 44, 530 = 2 * 256 + 18).
import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A.T @ B.T."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A.T, B.T)


M = 400
K = 300
N = 530


def get_inputs():
    A = torch.rand(K, M)
    B = torch.rand(N, K)
    return [A, B]


def get_init_inputs():
    return []
