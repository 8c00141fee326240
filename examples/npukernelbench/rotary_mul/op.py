# Rotary position embedding: x * cos + rotate_half(x) * sin.
# NPUKernelBench level2 (1_rotary_mul; MultiKernelBench reference/npukernelbench_level2/1_rotary_mul.py)
# gives this op as input groups:
# x, cos and sin of rank 4 in float16, float32 and bfloat16.
# The groups below are ours: the same kinds of case at small sizes (each dtype, the ranks the op
# takes, dims of 1, an empty tensor where the op allows one).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        x1, x2 = x.chunk(2, dim=-1)
        return x * cos + torch.cat((-x2, x1), dim=-1) * sin


DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}

# (dtype, shape) of each group
GROUPS = [
    ("f16", [64]), ("f16", [4, 96]), ("f16", [2, 3, 128]), ("f16", [1, 1, 8]), ("f16", [0, 32]),
    ("f32", [34]), ("f32", [7, 200]), ("f32", [2, 2, 2, 70]), ("f32", [5, 2]),
    ("bf16", [40]), ("bf16", [3, 5, 64]), ("bf16", [1, 2, 1, 2, 1, 2, 1, 30])
]


def get_input_groups():
    groups = []
    for dtype, shape in GROUPS:
        angle = torch.rand(shape) * 6.3
        groups.append([torch.randn(shape, dtype=DTYPES[dtype]), angle.cos().to(DTYPES[dtype]),
                       angle.sin().to(DTYPES[dtype])])
    return groups


def get_init_inputs():
    return []
