// ascendcraft AscendC CPU simulator: the internal CANN header some operators include by path for the
// special-register reads (GetAccVal and the like); the simulator declares those with the rest of the
// API (asc_sim/intrinsics.h), so this path only has to exist.
#pragma once
#include "kernel_operator.h"
