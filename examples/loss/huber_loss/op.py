# MultiKernelBench 2026 (reference/loss/huber_loss.py): predictions, targets f32[32768, 32768];
# F.smooth_l1_loss (beta 1, mean). MKB draws both from rand, so |p - t| < 1 and only the
# quadratic branch is ever taken; here the inputs are randn * 2 so both branches are.
# MKB 2026 shapes: batch_size=32768, dim=32768
# (MKB writes input_shape = (32768,) as a literal; here input_shape follows dim.)
# Here: 40 rows of 20000 values: 3 tiles per row (8192, 8192, 3616), 120 tiles over 48 cores.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Smooth L1 (Huber) loss."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        return torch.nn.functional.smooth_l1_loss(predictions, targets)


batch_size = 40
dim = 20000
input_shape = (dim,)


def get_inputs():
    return [torch.randn(batch_size, *input_shape) * 2, torch.randn(batch_size, *input_shape) * 2]


def get_init_inputs():
    return []
