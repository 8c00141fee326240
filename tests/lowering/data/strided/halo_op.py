# the mean of each element and its neighbours along the first axis (zero outside), and a masked
# column sum
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, mask):
        p = F.pad(x, (0, 0, 1, 1))
        return (p[:-2] + p[1:-1] + p[2:]) / 3.0, torch.where(mask, x, torch.zeros_like(x)).sum(dim=0)


rows = 300
cols = 21


def get_inputs():
    return [torch.randn(rows, cols), torch.rand(rows, cols) > 0.5]


def get_init_inputs():
    return []
