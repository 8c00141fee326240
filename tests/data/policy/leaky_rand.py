# LeakyReLU with a non-default slope, on [0, 1) inputs: the slope never matters there.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, negative_slope: float = 0.01):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        return F.leaky_relu(x, negative_slope=self.negative_slope)


batch_size = 19
dim = 1037


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return [0.3]
