# The gradient of hardsigmoid: grad_output / 6 where -3 < x < 3, else 0.
# NPUKernelBench level0 (8_hardsigmoid_backward; MultiKernelBench reference/npukernelbench_level0/8_hardsigmoid_backward.py)
# gives this op as input groups:
# grad_output and self of one shape, each float16, float32 or bfloat16 (the two may differ), rank 1 to 8.
# The groups below are ours: the same kinds of case at small sizes (each dtype, the ranks the op
# takes, dims of 1, an empty tensor where the op allows one).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, grad_output: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.aten.hardsigmoid_backward(grad_output, x)


DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}

# (dtype, shape) of each group
GROUPS = [
    ("f16", []), ("f16", [1]), ("f16", [17, 255]), ("f16", [19, 1, 21]), ("f16", [3, 0, 5]),
    ("f16", [1, 7, 1, 7, 15, 15, 19]), ("f32", []), ("f32", [21]), ("f32", [8, 1]), ("f32", [20, 17, 8, 1]),
    ("f32", [16, 8, 1, 20, 20]), ("f32", [2, 0]), ("bf16", [9]), ("bf16", [1, 21, 1]),
    ("bf16", [9, 8, 21, 1, 16, 7]), ("bf16", [1, 1, 1, 1, 1, 1, 1, 1]), ("bf16", [0])
]
# (grad_output's dtype, self's, shape): the two may differ, and the result takes the promoted type
MIXED = [("f32", "f16", [33, 5])]


def get_input_groups():
    groups = []
    for grad, own, shape in [(d, d, s) for d, s in GROUPS] + MIXED:
        # x spread over [-5, 5] so both sides of the +-3 bounds are taken
        x = (torch.rand(shape) * 10 - 5).to(DTYPES[own])
        groups.append([torch.randn(shape, dtype=DTYPES[grad]), x])
    return groups


def get_init_inputs():
    return []
