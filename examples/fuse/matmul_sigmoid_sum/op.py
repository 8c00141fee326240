# MultiKernelBench 2026 (reference/fuse/matmul_sigmoid_sum.py): sum(sigmoid(x @ W^T + b), dim=1,
# keepdim=True) with x f32[128, 32768] and nn.Linear(32768, 32768).
# MKB 2026 shapes: batch_size=128, input_size=32768, hidden_size=32768
# Here: x f32[150, 200], W f32[600, 200]: 2 x 3 output tiles of 128 x 256, short tiles on every
# axis (200 = 3 * 64 + 8 along K).
import torch
import torch.nn as nn


class Model(nn.Module):
    """Linear (with bias), sigmoid, then the sum of each row."""

    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.linear = nn.Linear(input_size, hidden_size)

    def forward(self, x):
        x = self.linear(x)
        x = torch.sigmoid(x)
        return torch.sum(x, dim=1, keepdim=True)


batch_size = 150
input_size = 200
hidden_size = 600


def get_inputs():
    return [torch.rand(batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_size]
