# MultiKernelBench 2026 (reference/attention/scaled_dot_product_attention.py):
# F.scaled_dot_product_attention(Q, K, V) with Q, K, V f32[32, 32, 512, 1024] (batch, heads,
# sequence, head dimension): softmax(Q K^T / sqrt(1024)) V, no mask.
# MKB 2026 shapes: batch_size=32, num_heads=32, sequence_length=512, embedding_dimension=1024
# Here: 2 x 3 heads of 150 x 72: score tiles with tails on both axes (150 = 128 + 22), a head
# dimension that is not a whole K step (72 = 64 + 8), 150-value rows in [54, 150] softmax blocks.
# MKB's inputs are torch.rand (every score positive, a near-uniform softmax); the check's other
# draws (signed, large, near one) make the softmax peaked too.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.scaled_dot_product_attention(Q, K, V)


batch_size = 2
num_heads = 3
sequence_length = 150
embedding_dimension = 72


def get_inputs():
    Q = torch.rand(batch_size, num_heads, sequence_length, embedding_dimension)
    K = torch.rand(batch_size, num_heads, sequence_length, embedding_dimension)
    V = torch.rand(batch_size, num_heads, sequence_length, embedding_dimension)
    return [Q, K, V]


def get_init_inputs():
    return []
