# MultiKernelBench 2026 (reference/matmul/four_dim_tensor_matrix_multiplication.py):
# einsum("bijl,lk->bijk") of A f32[8, 256, 512, 256] and B f32[256, 768].
# MKB 2026 shapes: b=8, i=256, j=512, l=256, k=768
# Here: A f32[2, 3, 150, 100] @ B f32[100, 270]: 6 products of 2 x 3 tiles of 128 x 128, short
# tiles on every axis (150 = 128 + 22, 100 = 64 + 36, 270 = 2 * 128 + 14).
import torch
import torch.nn as nn


class Model(nn.Module):
    """C[b, i, j, k] = sum_l A[b, i, j, l] * B[l, k]."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.einsum("bijl,lk->bijk", A, B)


b = 2
i = 3
j = 150
l = 100
k = 270


def get_inputs():
    A = torch.rand(b, i, j, l)
    B = torch.rand(l, k)
    return [A, B]


def get_init_inputs():
    return []
