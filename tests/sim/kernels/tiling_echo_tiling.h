#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(EchoTilingData)
  TILING_DATA_FIELD_DEF(int64_t, count);
  TILING_DATA_FIELD_DEF(float, scale);
  TILING_DATA_FIELD_DEF_ARR(uint16_t, 3, dims);
  TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, inner);
  TILING_DATA_FIELD_DEF(int8_t, last);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(Echo, EchoTilingData)
}
