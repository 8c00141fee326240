// ascendcraft AscendC CPU simulator, host side: the include path "tiling/tiling_templates_registry.h" of CANN's operator repositories
// (TilingBaseClass, TilingRegistry, REGISTER_TILING_TEMPLATE and their logging macros).
#pragma once
#include "../asc_sim/host/ops_tiling.h"
