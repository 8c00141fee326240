# Softmax over rows drawn as MultiKernelBench draws it: torch.randn, every row at one scale.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1)


batch_size = 13
dim = 517


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
