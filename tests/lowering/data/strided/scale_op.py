# y = x * (sum(x) / sum(x * x)): the scale of the whole tensor times each element
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * (x.sum() / (x * x).sum())


rows = 53
cols = 300


def get_inputs():
    return [torch.rand(rows, cols) + 0.5]


def get_init_inputs():
    return []
