# MultiKernelBench 2026 (reference/matmul/matrix_vector_multiplication.py): A f32[2048, 1048576]
# times B f32[1048576, 1].
# MKB 2026 shapes: M=2048, K=1048576
# Here: A f32[37, 3000]: chunks of 64 columns over the cores with a short last chunk
# (3000 = 46 * 64 + 56), rows in groups of 128 with a short last group.
import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A @ B, B a column vector."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


M = 37
K = 3000


def get_inputs():
    A = torch.rand(M, K)
    B = torch.rand(K, 1)
    return [A, B]


def get_init_inputs():
    return []
