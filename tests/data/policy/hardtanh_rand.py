# Hardtanh on [0, 1) inputs: the identity there.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x):
        return F.hardtanh(x, min_val=-1.0, max_val=1.0)


batch_size = 19
dim = 1037


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
