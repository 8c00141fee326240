# Cumulative sum along axis dim.
# NPUKernelBench level1 (5_cumsum; MultiKernelBench reference/npukernelbench_level1/5_cumsum.py)
# gives this op as input groups:
# float16, float32 and bfloat16 tensors of rank 1 to 4 with the dim to scan.
# The groups below are ours: the same kinds of case at small sizes (each dtype, the ranks the op
# takes, dims of 1, an empty tensor where the op allows one).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, dim: int) -> torch.Tensor:
        return torch.cumsum(x, dim)


DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}

# (dtype, shape, dim) of each group
GROUPS = [
    ("f16", [64], 0), ("f16", [4, 96], -1), ("f16", [2, 3, 128], 1), ("f16", [1, 1, 8], -3), ("f16", [0, 32], 1),
    ("f32", [33], -1), ("f32", [7, 200], 1), ("f32", [2, 2, 2, 70], 2), ("f32", [5, 3], 0), ("f32", [6, 0, 4], 1),
    ("f32", [3, 600, 5], -2), ("f32", [9000], 0),
    ("bf16", [40], 0), ("bf16", [3, 5, 64], -2), ("bf16", [1, 2, 1, 2, 1, 2, 1, 30], 4),
]


def get_input_groups():
    return [[torch.randn(shape, dtype=DTYPES[dtype]), dim] for dtype, shape, dim in GROUPS]


def get_init_inputs():
    return []
