// ascendcraft AscendC CPU simulator, host side: the include path "graph/ascend_string.h" (ge::AscendString).
#pragma once
#include "../asc_sim/host/ge_types.h"
