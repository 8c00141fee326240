# ReLU drawn as MultiKernelBench draws it: torch.rand, every value in [0, 1).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


batch_size = 19
dim = 1037


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
