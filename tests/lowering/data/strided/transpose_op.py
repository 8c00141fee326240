# y = 2 * x.T, z = x.T + 1: columns of x become rows (and rows columns); w: the column sums of x
# times 3 and 2, side by side
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        s = x.sum(dim=0)
        return 2.0 * x.t().contiguous(), x.t().contiguous() + 1.0, torch.stack([3.0 * s, 2.0 * s], dim=1)


rows = 300
cols = 21


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
