import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return x * 2


def get_init_inputs():
    return []
