// ascendcraft AscendC CPU simulator, host side: the include path "platform/platform_info.h" (fe::PlatFormInfos).
#pragma once
#include "../asc_sim/host/platform.h"
