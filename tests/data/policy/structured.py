# Inputs with structure the derived draws must keep: class indices, a mask, ±1 targets,
# probability rows, and a Python scalar.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, logits, index, mask, sign, probs, scale):
        picked = torch.gather(logits, 1, index.unsqueeze(1)).squeeze(1)
        return picked * scale, torch.where(mask, sign, -sign), (probs * torch.log(probs)).sum(dim=1)


batch_size = 9
classes = 67


def get_inputs():
    return [torch.rand(batch_size, classes), torch.randint(3, classes - 5, (batch_size,)),
            torch.rand(batch_size, classes) > 0.8, torch.randint(0, 2, (batch_size, classes)).float() * 2 - 1,
            torch.softmax(torch.randn(batch_size, classes), dim=1), 2.5]


def get_init_inputs():
    return []
