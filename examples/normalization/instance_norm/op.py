# MultiKernelBench 2026 (reference/normalization/instance_norm.py): x f32[128, 64, 512, 512],
# nn.InstanceNorm2d(64) (no affine, no running stats): each (b, c) image normalized over H x W.
# MKB 2026 shapes: batch_size=128, features=64, dim1=512, dim2=512
# Here: x f32[4, 13, 50, 170]: 52 images over 48 cores, 48 rows of 170 per 8192-element tile
# (50 = 48 + 2). MKB draws x from U[0, 1); here each image gets its own offset of up to 200
# (a kernel that computes the variance as E[x^2] - mean^2 in f32 fails).
import torch
import torch.nn as nn


class Model(nn.Module):
    """Instance normalization (2-D)."""

    def __init__(self, num_features: int):
        super().__init__()
        self.inorm = nn.InstanceNorm2d(num_features=num_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inorm(x)


batch_size = 4
features = 13
dim1 = 50
dim2 = 170


def get_inputs():
    x = torch.rand(batch_size, features, dim1, dim2) + torch.rand(batch_size, features, 1, 1) * 200
    return [x]


def get_init_inputs():
    return [features]
