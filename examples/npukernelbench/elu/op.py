# ELU with its three scalars: scale * (x if x > 0 else alpha * (exp(input_scale * x) - 1)).
# NPUKernelBench level0 (13_elu; MultiKernelBench reference/npukernelbench_level0/13_elu.py)
# gives this op as input groups:
# float16, float32 and bfloat16 tensors of rank 0 to 8 with alpha, scale and input_scale.
# The groups below are ours: the same kinds of case at small sizes (each dtype, the ranks the op
# takes, dims of 1, an empty tensor where the op allows one).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, alpha: float, scale: float, input_scale: float) -> torch.Tensor:
        return torch.ops.aten.elu(x, alpha, scale, input_scale)


DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}

# (dtype, shape) of each group
GROUPS = [
    ("f16", []), ("f16", [1]), ("f16", [17, 255]), ("f16", [19, 1, 21]), ("f16", [3, 0, 5]),
    ("f16", [1, 7, 1, 7, 15, 15, 19]), ("f32", []), ("f32", [21]), ("f32", [8, 1]), ("f32", [20, 17, 8, 1]),
    ("f32", [16, 8, 1, 20, 20]), ("f32", [2, 0]), ("bf16", [9]), ("bf16", [1, 21, 1]),
    ("bf16", [9, 8, 21, 1, 16, 7]), ("bf16", [1, 1, 1, 1, 1, 1, 1, 1]), ("bf16", [0])
]


def get_input_groups():
    groups = []
    for k, (dtype, shape) in enumerate(GROUPS):
        alpha, scale, input_scale = (1.0, 1.0, 1.0) if k % 2 == 0 else (0.5, 1.5, 2.0)
        groups.append([torch.randn(shape, dtype=DTYPES[dtype]), alpha, scale, input_scale])
    return groups


def get_init_inputs():
    return []
