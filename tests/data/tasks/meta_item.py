# get_inputs() and forward() call .item(), which the meta device cannot do: the
# loader falls back to running them on the CPU (small shapes, so that is allowed).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        return x * scale.item()


batch_size = 6
dim = 50


def get_inputs():
    scale = torch.rand(()) + 0.5
    shift = float(torch.rand(()).item())
    return [torch.rand(batch_size, dim) + shift, scale]


def get_init_inputs():
    return []
