// ascendcraft AscendC CPU simulator: the umbrella header real AscendC kernels include.
#pragma once
#include "asc_sim/core.h"
#include "asc_sim/tensor.h"
#include "asc_sim/copy.h"
#include "asc_sim/vec.h"
#include "asc_sim/cast.h"
#include "asc_sim/reduce.h"
#include "asc_sim/tiling.h"
#include "asc_sim/cube.h"
#include "asc_sim/load3d.h"
#include "asc_sim/adv.h"
#include "asc_sim/consts.h"
#include "asc_sim/host.h"
