import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(a) + b.float()


def get_inputs():
    return [torch.randn(7, 129, dtype=torch.float16), torch.randn(129, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
