# MultiKernelBench 2026 (reference/normalization/layer_norm.py): x f32[64, 64, 256, 256],
# nn.LayerNorm((64, 256, 256)): each batch element is normalized over 4M values (16 MiB).
# MKB 2026 shapes: batch_size=64, features=64, dim1=256, dim2=256
# Here: x f32[5, 40, 29, 300]: groups of 4 batch elements (4 and then 1: a short group), 160
# and 40 (b, c) slabs over 48 cores; 300-wide rows, 13 rows per 4096-element tile, so each
# slab has two full tiles and a short one.
# MKB keeps the default affine parameters (ones and zeros) and draws x from U[0, 1); here the
# parameters are random (a kernel that ignores them fails) and x is 30 + U[0, 1) (a kernel
# that computes the variance as E[x^2] - mean^2 in f32 loses it to cancellation and fails).
import torch
import torch.nn as nn


class Model(nn.Module):
    """Layer normalization over the last three dims, with elementwise affine parameters."""

    def __init__(self, normalized_shape: tuple):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape=normalized_shape)
        with torch.no_grad():
            self.ln.weight.uniform_(0.5, 1.5)
            self.ln.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ln(x)


batch_size = 5
features = 40
dim1 = 29
dim2 = 300


def get_inputs():
    x = torch.rand(batch_size, features, dim1, dim2) + 30
    return [x]


def get_init_inputs():
    return [(features, dim1, dim2)]
