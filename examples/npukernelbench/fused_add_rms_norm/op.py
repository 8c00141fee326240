# Residual add then RMSNorm: h = x + residual; (h * rsqrt(mean(h^2) + eps) * weight, h).
# NPUKernelBench level2 (18_fused_add_rmsnorm; MultiKernelBench reference/npukernelbench_level2/18_fused_add_rmsnorm.py)
# gives this op as input groups:
# x and residual of rank 1 to 2, weight of the last axis, eps.
# The groups below are ours: the same kinds of case at small sizes (each dtype, the ranks the op
# takes, dims of 1, an empty tensor where the op allows one).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float):
        h = x + residual
        hf = h.float()
        y = hf * torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + eps)
        return (y * weight.float()).to(x.dtype), h


DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}

# (dtype, shape) of each group
GROUPS = [
    ("f16", [64]), ("f16", [4, 96]), ("f16", [2, 3, 128]), ("f16", [1, 1, 8]), ("f16", [0, 32]),
    ("f32", [33]), ("f32", [7, 200]), ("f32", [2, 2, 2, 70]), ("f32", [5, 3]),
    ("bf16", [40]), ("bf16", [3, 5, 64]), ("bf16", [1, 2, 1, 2, 1, 2, 1, 30])
]


def get_input_groups():
    groups = []
    for k, (dtype, shape) in enumerate(GROUPS):
        t = DTYPES[dtype]
        groups.append([torch.randn(shape, dtype=t), torch.randn(shape, dtype=t), torch.randn(shape[-1:], dtype=t),
                       1e-6 if k % 2 else 1e-5])
    return groups


def get_init_inputs():
    return []
