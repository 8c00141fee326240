# Scaled dot-product attention with a narrow head (8 values a query): a query with one -inf and
# every key positive scores -inf everywhere, a row torch's attention defines as 0.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, Q, K, V):
        return torch.nn.functional.scaled_dot_product_attention(Q, K, V)


batch_size = 8
num_heads = 2
sequence_length = 40
embedding_dimension = 8


def get_inputs():
    shape = (batch_size, num_heads, sequence_length, embedding_dimension)
    return [torch.rand(shape), torch.rand(shape), torch.rand(shape)]


def get_init_inputs():
    return []
