# MultiKernelBench 2026 (reference/loss/cross_entropy_loss.py): predictions f32[32768, 4096],
# targets i64[32768] in [0, 4096); F.cross_entropy (mean over the batch).
# MKB 2026 shapes: batch_size=32768, num_classes=4096
# Here: 101 rows (uneven over 48 cores) of 10007 classes (more than one 8192-element tile).
import torch
import torch.nn as nn


class Model(nn.Module):
    """Cross-entropy loss for multi-class classification (mean reduction)."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        return torch.nn.functional.cross_entropy(predictions, targets)


batch_size = 101
num_classes = 10007
input_shape = (num_classes,)
dim = 1


def get_inputs():
    return [torch.randn(batch_size, *input_shape) * 3, torch.randint(0, num_classes, (batch_size,))]


def get_init_inputs():
    return []
