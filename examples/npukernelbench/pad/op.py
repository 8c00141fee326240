# Constant padding of the last axis: left and right widths and the fill value.
# NPUKernelBench level1 (15_pad; MultiKernelBench reference/npukernelbench_level1/15_pad.py)
# gives this op as input groups:
# tensors of rank 1 to 4 with a pad list, a mode and a value.
# The groups below are ours: the same kinds of case at small sizes (each dtype, the ranks the op
# takes, dims of 1, an empty tensor where the op allows one).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, left: int, right: int, value: float) -> torch.Tensor:
        return torch.nn.functional.pad(x, (left, right), mode="constant", value=value)


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
        left, right, value = k % 3, (2 * k + 1) % 5, (0.0, -1.5, 2.0)[k % 3]
        groups.append([torch.randn(shape, dtype=DTYPES[dtype]), left, right, value])
    return groups


def get_init_inputs():
    return []
