# MultiKernelBench 2026 (reference/activation/softmax.py): x f32[4096, 393216], softmax over dim 1.
# MKB 2026 shapes: batch_size=4096, dim=393216
# Here: 13 rows of 50021 values (195 KiB per row, longer than the 192 KiB UB, and not a
# multiple of the kernel's 8192-element tile). MKB draws torch.rand; here the values are
# scaled by a ramp along the row so the running max grows from tile to tile (a kernel that
# does not rescale its running sum fails).
import torch
import torch.nn as nn


class Model(nn.Module):
    """Softmax over the last dim of a 2-D tensor."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


batch_size = 13
dim = 50021


def get_inputs():
    x = torch.rand(batch_size, dim) * torch.linspace(1.0, 20.0, dim)
    return [x]


def get_init_inputs():
    return []
