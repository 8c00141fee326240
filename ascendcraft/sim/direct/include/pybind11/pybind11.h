// ascendcraft AscendC CPU simulator: <pybind11/pybind11.h> for the host code of a direct-launch operator (asc_sim/torch.h).
#pragma once
#include "asc_sim/torch.h"
