# torch.gather along axis dim.
# NPUKernelBench level1 (20_gather; MultiKernelBench reference/npukernelbench_level1/20_gather.py)
# gives this op as input groups:
# x of rank 1 to 4, dim, an int64 index of x's rank (fewer rows than x on dim, and in one group on
# a leading axis too).
# The groups below are ours: the same kinds of case at small sizes (each dtype, the ranks the op
# takes, dims of 1, an empty tensor where the op allows one).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, dim: int, index: torch.Tensor) -> torch.Tensor:
        return torch.gather(x, dim, index)


DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}

# (dtype, x's shape, dim, index's extent on dim, rows index leaves out on axis 0 when dim > 0) of each group
GROUPS = [
    ("f16", [64], 0, 35, 0), ("f16", [4, 96], -1, 51, 0), ("f16", [2, 3, 128], 1, 2, 0), ("f16", [1, 1, 8], 2, 7, 0),
    ("f16", [0, 32], 1, 19, 0), ("f32", [33], -1, 20, 0), ("f32", [7, 200], 0, 3, 0), ("f32", [2, 2, 2, 70], 1, 1, 1),
    ("f32", [5, 3], 1, 4, 0), ("f32", [32, 32, 32], -2, 32, 16), ("f32", [40, 300, 20], 1, 150, 0),
    ("f32", [1100, 24], 0, 40, 0), ("f16", [3, 700, 9], 1, 33, 0),
    ("bf16", [40], 0, 23, 0), ("bf16", [3, 5, 64], -2, 5, 0), ("bf16", [1, 2, 1, 2, 1, 2, 1, 30], 3, 1, 0),
]


def get_input_groups():
    groups = []
    for dtype, shape, dim, picks, fewer in GROUPS:
        axis = dim % len(shape)
        ishape = list(shape)
        ishape[axis] = picks
        if fewer and axis > 0:
            ishape[0] -= fewer
        index = torch.randint(0, max(shape[axis], 1), ishape, dtype=torch.int64)
        groups.append([torch.randn(shape, dtype=DTYPES[dtype]), dim, index])
    return groups


def get_init_inputs():
    return []
