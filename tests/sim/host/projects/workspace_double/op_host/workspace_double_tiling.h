// Test project (ascendcraft): WorkspaceDouble's tiling struct and compile info.
#ifndef WORKSPACE_DOUBLE_TILING_H
#define WORKSPACE_DOUBLE_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(WorkspaceDoubleTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, totalLength);
  TILING_DATA_FIELD_DEF(uint32_t, blockLength);
  TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(WorkspaceDouble, WorkspaceDoubleTilingData)

struct WorkspaceDoubleCompileInfo {
    uint32_t coreNum = 0;
    uint64_t ubSize = 0;
};
}  // namespace optiling
#endif
