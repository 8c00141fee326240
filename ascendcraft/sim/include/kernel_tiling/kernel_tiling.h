// ascendcraft AscendC CPU simulator: kernel-side tiling structs (TCubeTiling, ...).
#pragma once
#include "../asc_sim/tiling.h"
