// ascendcraft AscendC CPU simulator: the lib/sigmoid path of Sigmoid (asc-devkit:
// include/adv_api/activation/kernel_operator_sigmoid_intf.h); the simulator declares it in asc_sim/adv.h.
#pragma once
#include "../../kernel_operator.h"
