# MultiKernelBench 2026 (reference/normalization/rms_norm.py) with bf16 tensors: the dtype is ours
# (MKB's task is f32). x bf16[batch_size, features, dim1, dim2];
# x / sqrt(mean(x^2, dim=1) + eps): the reduction runs over dim 1 (features), not the last dim.
# MKB 2026 shapes: batch_size=128, features=64, dim1=512, dim2=512
# Here: x bf16[3, 19, 41, 250] (250-wide rows, 16 rows per 4096-element tile: 3 row blocks per
# image, the last short; 3 * 3 = 9 spatial blocks over 48 cores).
import torch
import torch.nn as nn


class Model(nn.Module):
    """RMS normalization over the feature dim (dim 1) of a bf16 tensor."""

    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rms = torch.sqrt(torch.mean(x ** 2, dim=1, keepdim=True) + self.eps)
        return x / rms


batch_size = 3
features = 19
dim1 = 41
dim2 = 250


def get_inputs():
    x = torch.randn(batch_size, features, dim1, dim2, dtype=torch.bfloat16)
    return [x]


def get_init_inputs():
    return [features]
