# KernelBench level 1, 15_Matmul_for_lower_triangular_matrices (not in MultiKernelBench): C is
# the lower triangle of A @ B, A and B lower triangular, N = 4096.
# KernelBench shapes: N=4096
# Here N = 600: 5 row blocks of 128 (the last 88 rows) by 3 column blocks of 256 (the last 88).
import torch
import torch.nn as nn


class Model(nn.Module):
    """C = tril(A @ B)."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.tril(torch.matmul(A, B))


N = 600


def get_inputs():
    A = torch.tril(torch.randn(N, N))
    B = torch.tril(torch.randn(N, N))
    return [A, B]


def get_init_inputs():
    return []
