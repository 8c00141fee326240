import torch


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return x


def get_inputs():
    return [torch.rand(4)]
