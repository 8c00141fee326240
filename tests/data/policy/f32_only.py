# An op that refuses to run in float64 (a dtype assertion): the float32 reference judges.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        assert x.dtype == torch.float32, "float32 only"
        return torch.relu(x)


batch_size = 7
dim = 301


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
