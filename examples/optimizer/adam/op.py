# MultiKernelBench 2026 (reference/optimizer/adam.py): param, grad, m, v f32[512, 2048]
# (literals in get_inputs; m and v are zeros there), one Adam step, returns the new param.
# MKB 2026 shapes: rows=512, cols=2048
# Here: f32[53, 1500] (two rows per 4096-element tile: 27 row blocks over 48 cores, the last
# one a single row), m and v random (so a kernel that ignores them fails), and a non-default
# lr and step passed to Model.__init__ (the bias corrections 1 - beta**step matter).
import torch
import torch.nn as nn


class Model(nn.Module):
    """One Adam update of a parameter tensor."""

    def __init__(self, beta1=0.9, beta2=0.999, lr=1e-3, eps=1e-8, step=1):
        super().__init__()
        self.beta1 = beta1
        self.beta2 = beta2
        self.lr = lr
        self.eps = eps
        self.step = step

    def forward(self, param, grad, m, v):
        m = self.beta1 * m + (1 - self.beta1) * grad
        v = self.beta2 * v + (1 - self.beta2) * grad.pow(2)
        m_hat = m / (1 - self.beta1 ** self.step)
        v_hat = v / (1 - self.beta2 ** self.step)
        param = param - self.lr * m_hat / (v_hat.sqrt() + self.eps)
        return param


rows = 53
cols = 1500


def get_inputs():
    param = torch.rand(rows, cols)
    grad = torch.randn(rows, cols)
    m = torch.randn(rows, cols) * 0.1
    v = torch.rand(rows, cols) * 0.01
    return [param, grad, m, v]


def get_init_inputs():
    return [0.9, 0.999, 1e-2, 1e-8, 5]
