# Rows of a table picked by an index tensor (embedding, index_select along dim 0): 4096 rows of
# 2048 columns, 4096 indices in [0, 4096). In these tests the table is reduced below 1000 rows.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, table, idx):
        return table[idx]


rows = 4096
cols = 2048
n_idx = 4096


def get_inputs():
    return [torch.randn(rows, cols), torch.randint(0, rows, (n_idx,))]


def get_init_inputs():
    return []
