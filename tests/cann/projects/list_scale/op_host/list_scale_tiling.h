// A test operator of ascendcraft's: y[i] = x[i] * scale for every tensor i of a tensor list (DYNAMIC
// input and output), the lists' elements dealt over the blocks whole.
#pragma once
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ListScaleTilingData)
TILING_DATA_FIELD_DEF(uint32_t, count);
TILING_DATA_FIELD_DEF_ARR(uint32_t, 16, elements);
TILING_DATA_FIELD_DEF(float, scale);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ListScale, ListScaleTilingData)
}  // namespace optiling
