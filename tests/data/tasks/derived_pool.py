# Derived shape constants (seq_len = base_len * 2) next to pooling constants that
# are not sizes (kernel_size, stride, padding) and must never be shrunk.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.pool = nn.MaxPool1d(kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return self.pool(x + bias)


batch_size = 64
features = 192
base_len = 8192
seq_len = base_len * 2
kernel_size = 8
stride = 1
padding = 4


def get_inputs():
    return [torch.rand(batch_size, features, seq_len), torch.rand(seq_len)]


def get_init_inputs():
    return [kernel_size, stride, padding]
