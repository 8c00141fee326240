# torch.gather along the last axis.
# NPUKernelBench level1 (20_gather; MultiKernelBench reference/npukernelbench_level1/20_gather.py)
# gives this op as input groups:
# x of rank 1 to 4, dim, an int64 index of x's rank.
# The groups below are ours: the same kinds of case at small sizes (each dtype, the ranks the op
# takes, dims of 1, an empty tensor where the op allows one).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, dim: int, index: torch.Tensor) -> torch.Tensor:
        return torch.gather(x, dim, index)


DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}

# (dtype, shape) of each group
GROUPS = [
    ("f16", [64]), ("f16", [4, 96]), ("f16", [2, 3, 128]), ("f16", [1, 1, 8]), ("f16", [0, 32]),
    ("f32", [33]), ("f32", [7, 200]), ("f32", [2, 2, 2, 70]), ("f32", [5, 3]),
    ("bf16", [40]), ("bf16", [3, 5, 64]), ("bf16", [1, 2, 1, 2, 1, 2, 1, 30])
]


def get_input_groups():
    groups = []
    for dtype, shape in GROUPS:
        picks = list(shape[:-1]) + [max(1, shape[-1] // 2 + 3)]
        index = torch.randint(0, max(shape[-1], 1), picks, dtype=torch.int64)
        groups.append([torch.randn(shape, dtype=DTYPES[dtype]), len(shape) - 1, index])
    return groups


def get_init_inputs():
    return []
