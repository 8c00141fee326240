import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return x + 1


def get_inputs():
    return [torch.rand(4, 4, dtype=torch.float64)]


def get_init_inputs():
    return []
