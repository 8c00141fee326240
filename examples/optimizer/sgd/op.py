# MultiKernelBench 2026 (reference/optimizer/sgd.py): param, grad, velocity f32[1024, 4096]
# (literals in get_inputs; velocity is zeros there), SGD with momentum, returns the new param.
# MKB 2026 shapes: rows=1024, cols=4096
# Here: f32[53, 9001], a random velocity (so a kernel that ignores it fails) and
# non-default momentum and lr passed to Model.__init__.
import torch
import torch.nn as nn


class Model(nn.Module):
    """One SGD-with-momentum update."""

    def __init__(self, momentum=0.9, lr=1e-2):
        super().__init__()
        self.momentum = momentum
        self.lr = lr

    def forward(self, param, grad, velocity):
        velocity = self.momentum * velocity + grad
        param = param - self.lr * velocity
        return param


rows = 53
cols = 9001


def get_inputs():
    param = torch.rand(rows, cols)
    grad = torch.randn(rows, cols)
    velocity = torch.randn(rows, cols)
    return [param, grad, velocity]


def get_init_inputs():
    return [0.8, 0.05]
