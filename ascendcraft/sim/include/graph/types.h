// ascendcraft AscendC CPU simulator, host side: the include path "graph/types.h" (ge::DataType, ge::Format, GetSizeByDataType).
#pragma once
#include "../asc_sim/host/ge_types.h"
