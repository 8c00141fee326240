# Mish over any rank and dtype.
# NPUKernelBench level0 (5_mish; MultiKernelBench reference/npukernelbench_level0/5_mish.py)
# gives this op as input groups:
# float16, float32 and bfloat16 tensors of rank 0 to 8, some empty.
# The groups below are ours: the same kinds of case at small sizes (each dtype, the ranks the op
# takes, dims of 1, an empty tensor where the op allows one).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.mish(x)


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
        groups.append([torch.randn(shape, dtype=DTYPES[dtype])])
    return groups


def get_init_inputs():
    return []
