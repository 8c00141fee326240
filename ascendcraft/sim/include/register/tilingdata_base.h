// ascendcraft AscendC CPU simulator: tiling-data registration macros (host and kernel side).
#pragma once
#include "../asc_sim/tiling.h"
