// A test operator of ascendcraft's: its output is bool where its reference's is x's dtype.
#pragma once
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(IsPositiveCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(IsPositiveCustom, IsPositiveCustomTilingData)
}  // namespace optiling
