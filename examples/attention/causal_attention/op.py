# MultiKernelBench 2026 (reference/attention/causal_attention.py): decoder self-attention,
# nn.MultiheadAttention(512, 4, batch_first=True) with an upper-triangular (causal) mask, over
# x f32[32, 64, 512]; the packed q/k/v projection, the heads, the masked softmax, the output
# projection. The mask buffer is not a parameter (persistent=False): the kernel makes it.
# MKB 2026 shapes: batch_size=32, seq_len=64, d_model=512
# Here: 2 sequences of 37 tokens, d_model 24 in 4 heads of 6 (init [d_model, 4] as MKB's).
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Causal (decoder) self-attention with an upper-triangular mask.
    Mask is precomputed and registered as a non-trainable buffer.
    """
    def __init__(self, d_model=256, num_heads=4, max_seq_len=4096):
        super().__init__()
        self.mha = nn.MultiheadAttention(d_model, num_heads, batch_first=True)
        self.max_seq_len = max_seq_len

        # Precompute causal mask (1 for disallowed positions)
        mask = torch.triu(torch.ones(max_seq_len, max_seq_len), diagonal=1).bool()
        self.register_buffer("causal_mask", mask, persistent=False)

    def forward(self, x):
        seq_len = x.size(1)
        attn_mask = self.causal_mask[:seq_len, :seq_len]
        out, _ = self.mha(x, x, x, attn_mask=attn_mask)
        return out


batch_size = 2
seq_len = 37
d_model = 24


def get_inputs():
    x = torch.rand(batch_size, seq_len, d_model)
    return [x]


def get_init_inputs():
    return [d_model, 4]
