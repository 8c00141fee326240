// ascendcraft AscendC CPU simulator, host side: the include path "graph/ge_error_codes.h" (ge::graphStatus and its values).
#pragma once
#include "../asc_sim/host/ge_types.h"
