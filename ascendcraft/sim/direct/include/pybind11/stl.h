// ascendcraft AscendC CPU simulator: <pybind11/stl.h> for the host code of a direct-launch operator (asc_sim/torch.h).
#pragma once
#include "asc_sim/torch.h"
