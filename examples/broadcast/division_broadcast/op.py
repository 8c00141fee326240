# MultiKernelBench 2026 (reference/broadcast/division_broadcast.py): x f32[8, 3, 32, 128]
# / scale f32[3, 1, 1], one divisor per channel broadcast over the H x W plane.
# MKB 2026 shapes: N=8, C=3, H=32, W=128
# Here: x f32[3, 7, 30, 300], scale f32[7, 1, 1]: 21 (image, channel) planes whose 30 rows come
# in blocks of 13, 13 and a short 4, so 63 blocks split unevenly over the 48 cores, and a row
# width that is not a multiple of the 8-float block; signed x. The divisor is drawn as the op
# draws it (uniform [0, 1), nothing keeps it away from zero): the kernel must divide, not
# rely on a bounded reciprocal.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Divide each channel of an NCHW tensor by its own scale."""

    def __init__(self):
        super().__init__()

    def forward(self, x, scale):
        return x / scale


N = 3
C = 7
H = 30
W = 300


def get_inputs():
    x = torch.randn(N, C, H, W)
    scale = torch.rand(C, 1, 1)
    return [x, scale]


def get_init_inputs():
    return []
