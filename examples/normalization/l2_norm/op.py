# MultiKernelBench 2026 (reference/normalization/l2_norm.py): x f32[32768, 65535],
# x / torch.norm(x, p=2, dim=1, keepdim=True).
# MKB 2026 shapes: batch_size=32768, dim=65535
# Here: 7 rows of 65535 values (256 KiB per row, longer than the 192 KiB UB; 8 tiles of 8192,
# the last one 8191 long).
import torch
import torch.nn as nn


class Model(nn.Module):
    """L2 normalization of each row."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / torch.norm(x, p=2, dim=1, keepdim=True)


batch_size = 7
dim = 65535


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
