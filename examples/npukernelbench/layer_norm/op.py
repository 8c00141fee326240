# LayerNorm over the last axis; weight and bias optional (None: 1 and 0).
# NPUKernelBench level1 (10_layer_norm; MultiKernelBench reference/npukernelbench_level1/10_layer_norm.py)
# gives this op as input groups:
# x of rank 1 to 4, normalized_shape as a list, weight and bias present or None.
# The groups below are ours: the same kinds of case at small sizes (each dtype, the ranks the op
# takes, dims of 1, an empty tensor where the op allows one).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, normalized_shape: list, weight: torch.Tensor = None,
                bias: torch.Tensor = None) -> torch.Tensor:
        return torch.nn.functional.layer_norm(x, normalized_shape, weight=weight, bias=bias)


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
        n = shape[-1]
        weight = torch.randn([n], dtype=DTYPES[dtype]) if k % 3 != 2 else None
        bias = torch.randn([n], dtype=DTYPES[dtype]) if k % 2 == 0 else None
        groups.append([torch.randn(shape, dtype=DTYPES[dtype]) * 3 + 1, [n], weight, bias])
    return groups


def get_init_inputs():
    return []
