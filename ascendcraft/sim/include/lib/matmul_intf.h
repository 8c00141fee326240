// ascendcraft AscendC CPU simulator: high-level Matmul API.
#pragma once
#include "../kernel_operator.h"
#include "../asc_sim/matmul.h"
