// ascendcraft AscendC CPU simulator: the include path "tiling/platform/platform_ascendc.h".
#pragma once
#include "../../platform/platform_ascendc.h"
