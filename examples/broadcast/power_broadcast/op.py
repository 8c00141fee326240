# MultiKernelBench 2026 (reference/broadcast/power_broadcast.py): x f32[4, 2048] ** exponent f32[2048]
# (literals in get_inputs: x = |rand| + 1e-2, exponent all 0.5), the exponent broadcast over the rows.
# MKB 2026 shapes: R=4, C=2048
# Here: f32[5, 1100] (a column tail) with SIGNED bases (zeros among them) and exponents that mix
# odd and even integers, halves and zero, so a kernel right only for x > 0 (exp(e * ln x)) fails:
# torch.pow gives a signed result for a negative base and an integer exponent, NaN for a
# non-integer one, 1 for a zero exponent and inf for 0 ** negative.
import torch
import torch.nn as nn


class Model(nn.Module):
    """x ** exponent, the exponent a row vector broadcast over x's rows."""

    def __init__(self):
        super().__init__()

    def forward(self, x, exponent):
        return x ** exponent


R = 5
C = 1100


def get_inputs():
    x = torch.randn(R, C) * 2
    x[:, ::7] = 0.0
    exponent = torch.randint(-3, 4, (C,)).float()
    exponent[::3] += 0.5
    return [x, exponent]


def get_init_inputs():
    return []
