# x > y, element-wise, as a bool tensor.
# NPUKernelBench level0 (15_gt_tensor; MultiKernelBench reference/npukernelbench_level0/15_gt_tensor.py)
# gives this op as input groups:
# pairs of tensors of many dtypes and ranks 0 to 8, a bool result.
# The groups below are ours: the same kinds of case at small sizes (each dtype, the ranks the op
# takes, dims of 1, an empty tensor where the op allows one).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.gt(x, y)


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
    for dtype, shape in GROUPS:
        x = torch.randn(shape, dtype=DTYPES[dtype])
        y = torch.randn(shape, dtype=DTYPES[dtype])
        y.view(-1)[::3] = x.view(-1)[::3]      # ties: x > y is False there
        groups.append([x, y])
    return groups


def get_init_inputs():
    return []
