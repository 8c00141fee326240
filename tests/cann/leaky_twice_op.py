# leaky_relu applied twice (a test file of ascendcraft's, for a direct-launch operator that launches twice).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, negative_slope: float = 0.01):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        once = torch.nn.functional.leaky_relu(x, negative_slope=self.negative_slope)
        return torch.nn.functional.leaky_relu(once, negative_slope=self.negative_slope)


def get_inputs():
    return [torch.randn(37, 1001)]


def get_init_inputs():
    return [0.2]
