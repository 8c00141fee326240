# MultiKernelBench 2026 (reference/index/embedding.py): nn.Embedding(100000, 768) looked up at
# indices i64[512, 128] in [0, 100000) -> f32[512, 128, 768].
# MKB 2026 shapes: num_embeddings=100000, embedding_dim=768, batch=512, seq=128
# Here: a 1,000-row table of 100 floats (rows of 400 bytes, not whole 32-byte blocks), looked up
# at 13 x 37 = 481 indices (repeats certain), split unevenly over 48 cores. The table is an input
# of the forward here (F.embedding), where MultiKernelBench's is the module's weight: the shape
# reduction shrinks the constants that size the forward's inputs, and the 293 MiB table must shrink
# to be verified (its lookups are the same).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """An embedding lookup: row indices[b, s] of the table."""

    def forward(self, indices, table):
        return F.embedding(indices, table)


num_embeddings = 1000
embedding_dim = 100
batch = 13
seq = 37


def get_inputs():
    return [torch.randint(0, num_embeddings, (batch, seq)), torch.randn(num_embeddings, embedding_dim)]


def get_init_inputs():
    return []
