// ascendcraft AscendC CPU simulator, host side: the include path "graph/utils/type_utils.h" (ge::TypeUtils).
#pragma once
#include "../../asc_sim/host/ge_types.h"
