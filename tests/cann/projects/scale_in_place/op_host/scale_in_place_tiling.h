// A test operator of ascendcraft's: x = x * scale in place (an OpDef without outputs, as Sscal).
#pragma once
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleInPlaceTilingData)
TILING_DATA_FIELD_DEF(uint32_t, n);
TILING_DATA_FIELD_DEF(float, scale);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ScaleInPlace, ScaleInPlaceTilingData)
}  // namespace optiling
