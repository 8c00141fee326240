# Softmax over rows as MultiKernelBench sizes it: 48 x 8192 columns, more rows than fit --max-bytes
# in these tests, so the values are compared at reduced shapes whose dims are odd.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1)


batch_size = 256
dim = 48 * 8192


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
