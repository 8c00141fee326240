// ascendcraft AscendC CPU simulator: tiling-data registration macros (host and kernel side).
#pragma once
#include <cstring>
#include <map>
#include <memory>
#include <vector>   // metadef's tilingdata_base.h includes these, and op_host code relies on them
#include "../asc_sim/tiling_def.h"
