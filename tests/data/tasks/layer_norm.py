import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, normalized_shape: tuple, eps: float = 1e-5):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape, eps=eps)
        with torch.no_grad():  # not the default ones, so a kernel ignoring them fails
            self.ln.weight.uniform_(0.5, 1.5)
            self.ln.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ln(x)


batch_size = 4
features = 6
dim = 33


def get_inputs():
    return [torch.randn(batch_size, features, dim)]


def get_init_inputs():
    return [(features, dim)]
