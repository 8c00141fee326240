// Test project (ascendcraft): WorkspaceDouble's host side in the IMPL_OP style. TilingParse fills the
// compile info from the platform; the TilingFunc reads it, picks the tiling key from the shape (1: every
// block a whole number of 32-byte blocks, DataCopy; 2: an unaligned length, DataCopyPad) and asks for a
// user workspace of one float per element after the system workspace.
#include "workspace_double_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t TILE = 1024;
constexpr uint32_t ALIGN = 8;  // floats in 32 bytes

static ge::graphStatus TilingPrepare(gert::TilingParseContext* context)
{
    auto* info = context->GetCompiledInfo<WorkspaceDoubleCompileInfo>();
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    info->coreNum = platform.GetCoreNumAiv();
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, info->ubSize);
    return ge::GRAPH_SUCCESS;
}

static ge::graphStatus Tiling(gert::TilingContext* context)
{
    const auto* info = context->GetCompileInfo<WorkspaceDoubleCompileInfo>();
    const uint32_t total = static_cast<uint32_t>(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    if (info == nullptr || info->coreNum == 0 || total == 0) {
        return ge::GRAPH_FAILED;
    }
    uint32_t blocks = (total + TILE - 1) / TILE;
    blocks = blocks > info->coreNum ? info->coreNum : blocks;
    uint32_t blockLength = (total + blocks - 1) / blocks;
    blockLength = (blockLength + ALIGN - 1) / ALIGN * ALIGN;
    blocks = (total + blockLength - 1) / blockLength;

    WorkspaceDoubleTilingData* tiling = context->GetTilingData<WorkspaceDoubleTilingData>();
    tiling->set_totalLength(total);
    tiling->set_blockLength(blockLength);
    tiling->set_tileLength(TILE);
    context->SetTilingKey(total % ALIGN == 0 ? 1 : 2);
    context->SetBlockDim(blocks);
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = platform.GetLibApiWorkSpaceSize() + static_cast<size_t>(blocks) * blockLength * sizeof(float);
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_OPTILING(WorkspaceDouble).Tiling(Tiling).TilingParse<WorkspaceDoubleCompileInfo>(TilingPrepare);
}  // namespace optiling

namespace ge {
static graphStatus InferShapeWorkspaceDouble(gert::InferShapeContext* context)
{
    const gert::Shape* x = context->GetInputShape(0);
    gert::Shape* y = context->GetOutputShape(0);
    y->SetDimNum(x->GetDimNum());
    for (size_t i = 0; i < x->GetDimNum(); ++i) {
        y->SetDim(i, x->GetDim(i));
    }
    return GRAPH_SUCCESS;
}
IMPL_OP_INFERSHAPE(WorkspaceDouble).InferShape(InferShapeWorkspaceDouble);
}  // namespace ge

namespace ops {
class WorkspaceDouble : public OpDef {
public:
    explicit WorkspaceDouble(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(WorkspaceDouble);
}  // namespace ops
