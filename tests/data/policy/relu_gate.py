# A gated ReLU of two float inputs, drawn as MultiKernelBench draws them: relu(x) * g, torch.rand.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, g):
        return torch.relu(x) * g


batch_size = 19
dim = 1037


def get_inputs():
    return [torch.rand(batch_size, dim), torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
