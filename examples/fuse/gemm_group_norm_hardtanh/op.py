# MultiKernelBench 2026 (reference/fuse/gemm_group_norm_hardtanh.py): hardtanh(group_norm(x W^T + b))
# with nn.Linear(8192, 8192), nn.GroupNorm(16, 8192) (affine) and nn.Hardtanh(-2, 2), x f32[1024, 8192].
# MKB 2026 shapes: batch_size=1024, in_features=8192, out_features=8192, num_groups=16
# Here: 150 rows of 300 features into 96 outputs in 4 groups of 24: tails on every product tile and
# on the norm's row blocks. MKB's GroupNorm starts with weight 1 and bias 0; here they are random so a
# kernel that drops the affine part fails.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, num_groups, hardtanh_min, hardtanh_max):
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.group_norm = nn.GroupNorm(num_groups, out_features)
        self.hardtanh = nn.Hardtanh(min_val=hardtanh_min, max_val=hardtanh_max)
        with torch.no_grad():
            self.group_norm.weight.uniform_(0.5, 1.5)
            self.group_norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        x = self.gemm(x)
        x = self.group_norm(x)
        x = self.hardtanh(x)
        return x


batch_size = 150
in_features = 300
out_features = 96
num_groups = 4
hardtanh_min = -2.0
hardtanh_max = 2.0


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, num_groups, hardtanh_min, hardtanh_max]
