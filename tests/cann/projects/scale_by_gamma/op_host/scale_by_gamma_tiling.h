// A test operator of ascendcraft's: y = x * gamma over the last axis, and a copy of x as a second output.
#pragma once
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleByGammaTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerBlock);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ScaleByGamma, ScaleByGammaTilingData)
}  // namespace optiling
