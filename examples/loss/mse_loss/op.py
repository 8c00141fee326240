# MultiKernelBench 2026 (reference/loss/mse_loss.py): predictions, targets f32[32768, 32768];
# torch.mean((predictions - targets) ** 2), predictions scaled by a random scalar.
# MKB 2026 shapes: batch_size=32768, dim=32768
# (MKB writes input_shape = (32768,) as a literal; here input_shape follows dim.)
# Here: 53 rows of 17001 values: 53 * 3 = 159 tiles (the third of each row 617 long), split
# 4/3 over 48 cores.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Mean squared error loss."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        return torch.mean((predictions - targets) ** 2)


batch_size = 53
dim = 17001
input_shape = (dim,)


def get_inputs():
    scale = torch.rand(())
    return [torch.rand(batch_size, *input_shape) * scale, torch.rand(batch_size, *input_shape)]


def get_init_inputs():
    return []
