# The op the test project under projects/scale_in_place implements: the operator writes its input in
# place and declares no output, as NPUKernelBench's Sscal does; the op returns the result.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return x * self.scale


def get_inputs():
    return [torch.randn(10000)]


def get_init_inputs():
    return [-1.5]
