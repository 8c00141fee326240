# SwiGLU: axis dim split in halves a, b; silu(a) * b.
# NPUKernelBench level1 (2_swi_glu; MultiKernelBench reference/npukernelbench_level1/2_swi_glu.py)
# gives this op as input groups:
# float16, float32 and bfloat16 tensors of rank 1 to 4 split along dim (-1 in every group there).
# The groups below are ours: the same kinds of case at small sizes (each dtype, the ranks the op
# takes, dims of 1, an empty tensor where the op allows one).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, dim: int = -1) -> torch.Tensor:
        a, b = x.chunk(2, dim=dim)
        return torch.nn.functional.silu(a) * b


DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}

# (dtype, shape, dim) of each group
GROUPS = [
    ("f16", [64], -1), ("f16", [4, 96], 0), ("f16", [2, 3, 128], -1), ("f16", [1, 1, 8], 2), ("f16", [0, 32], -1),
    ("f32", [34], 0), ("f32", [7, 200], -1), ("f32", [2, 2, 2, 70], 1), ("f32", [5, 2], 1), ("f32", [6, 10, 3], -2),
    ("f32", [2, 0, 4], 2), ("f32", [64, 3000], -2),
    ("bf16", [40], -1), ("bf16", [3, 6, 64], -2), ("bf16", [1, 2, 1, 2, 1, 2, 1, 30], -5)
]


def get_input_groups():
    return [[torch.randn(shape, dtype=DTYPES[dtype]) * 2, dim] for dtype, shape, dim in GROUPS]


def get_init_inputs():
    return []
