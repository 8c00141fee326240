# MultiKernelBench 2026 (reference/matmul/batched_matrix_multiplication.py): torch.bmm of
# A f32[128, 512, 1024] and B f32[128, 1024, 2048].
# MKB 2026 shapes: batch_size=128, m=512, k=1024, n=2048
# Here: 5 batches of A f32[150, 100] @ B f32[100, 270]: 2 x 2 tiles of 128 x 256 per product,
# short tiles on every axis (150 = 128 + 22, 100 = 64 + 36, 270 = 256 + 14), 5 batches on the
# cores in uneven runs.
import torch
import torch.nn as nn


class Model(nn.Module):
    """C = bmm(A, B)."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.bmm(A, B)


batch_size = 5
m = 150
k = 100
n = 270


def get_inputs():
    A = torch.rand(batch_size, m, k)
    B = torch.rand(batch_size, k, n)
    return [A, B]


def get_init_inputs():
    return []
