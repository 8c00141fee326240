# .item() in get_inputs() (no meta run) and a 6.4 GB input: the loader must refuse
# rather than allocate.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


batch_size = 4096
dim = 393216


def get_inputs():
    shift = torch.rand(()).item()
    return [torch.rand(batch_size, dim) + shift]


def get_init_inputs():
    return []
