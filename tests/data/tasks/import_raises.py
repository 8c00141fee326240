import torch

batch_size = 16
dim = undefined_constant * 2


class Model(torch.nn.Module):
    def forward(self, x):
        return x


def get_inputs():
    return [torch.rand(batch_size, dim)]
