# Rows long enough that every softmax value is below 1e-4: an all-zero output
# passes allclose(atol=1e-4) here, as it does in MultiKernelBench v2026.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


batch_size = 3
dim = 100003


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
