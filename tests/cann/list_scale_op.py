# The op the test project under projects/list_scale implements, NPUKernelBench's Foreach style: a
# list of tensors scaled by an attribute. Its groups are split per element (ascendcraft/foreach.py),
# and each element reaches the operator as a tensor list of one.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return [t * self.scale for t in x]


def get_input_groups():
    return [[[torch.randn(13, 72)]], [[torch.randn(5000), torch.randn(3, 7)]]]


def get_init_inputs():
    return [0.75]
