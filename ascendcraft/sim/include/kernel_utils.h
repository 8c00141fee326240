// ascendcraft AscendC CPU simulator: CANN's kernel_utils.h, which some operators include by name for
// the helpers the AscendC API already declares here (AscendCUtils, the constants).
#pragma once
#include "kernel_operator.h"
