# The op the test project under projects/is_positive implements (a test file of ascendcraft's):
# its reference gives x's dtype where the operator writes bool.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return (x > 0).to(x.dtype)


def get_inputs():
    return [torch.randn(37, 101)]


def get_init_inputs():
    return []
