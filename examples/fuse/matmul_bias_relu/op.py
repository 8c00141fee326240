# MultiKernelBench 2026 (reference/fuse/gemm_add_relu.py): relu(x @ W^T + bias) with
# x f32[1024, 8192], nn.Linear(8192, 8192, bias=False) and a separate bias parameter f32[8192].
# MKB 2026 shapes: batch_size=1024, in_features=8192, out_features=8192
# Here: x f32[530, 300], W f32[650, 300]: 5 x 3 = 15 output tiles of 128 x 256, short tiles
# on every axis (300 = 4 * 64 + 44 along K).
import torch
import torch.nn as nn


class Model(nn.Module):
    """Matrix multiplication (Linear without bias), bias add, ReLU."""

    def __init__(self, in_features, out_features, bias_shape):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        x = self.gemm(x)
        x = x + self.bias
        x = torch.relu(x)
        return x


batch_size = 530
in_features = 300
out_features = 650
bias_shape = (out_features,)


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, bias_shape]
