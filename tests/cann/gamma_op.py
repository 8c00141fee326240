# The op the test project under projects/scale_by_gamma implements: gamma is a tensor Model.__init__
# takes (as NPUKernelBench passes a norm's weight), and the operator has a second output the op lacks.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, gamma: torch.Tensor):
        super().__init__()
        self.gamma = gamma

    def forward(self, x):
        return x * self.gamma


def get_inputs():
    return [torch.randn(13, 72)]


def get_init_inputs():
    return [torch.randn(72)]
