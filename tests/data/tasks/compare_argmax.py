# A bool output, an integer output, an integer input and a Python scalar input.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, k: torch.Tensor, threshold: float):
        mask = x > threshold
        idx = torch.argmax(x, dim=1)
        scaled = k * 3 - 7
        return mask, (idx, scaled)


rows = 5
cols = 77


def get_inputs():
    return [torch.rand(rows, cols), torch.randint(-100, 100, (rows, cols), dtype=torch.int32), 0.5]


def get_init_inputs():
    return []
