// ascendcraft AscendC CPU simulator: the lib/math path of Power (asc-devkit:
// include/adv_api/math/kernel_operator_power_intf.h); the simulator declares it in asc_sim/adv.h.
#pragma once
#include "../../kernel_operator.h"
