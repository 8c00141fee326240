// Host tiling header of an msopgen Matmul project: TCubeTiling comes from tiling/tiling_api.h.
#ifndef MATMUL_BIAS_CUSTOM_TILING_H
#define MATMUL_BIAS_CUSTOM_TILING_H
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MatmulBiasCustomTilingData)
  TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTilingData);
  TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MatmulBiasCustom, MatmulBiasCustomTilingData)
}
#endif // MATMUL_BIAS_CUSTOM_TILING_H
