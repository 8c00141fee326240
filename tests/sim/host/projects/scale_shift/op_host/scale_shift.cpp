// Test project (ascendcraft): ScaleShift's host side in the OpDef style (SetTiling, SetInferShape,
// SetInferDataType). The TilingFunc reads the attributes alpha (optional, default 1.0) and beta
// (required), picks the tiling key from the input's data type (1: float16, 2: float32), notes whether the
// optional input bias is there, and uses as few blocks as the tiles need (below the core count for
// small inputs).
#include "scale_shift_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t TILE_BYTES = 4096;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const gert::StorageShape* xShape = context->GetInputShape(0);
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    if (xShape == nullptr || attrs == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const uint32_t total = static_cast<uint32_t>(xShape->GetStorageShape().GetShapeSize());
    const ge::DataType dtype = context->GetInputDesc(0)->GetDataType();
    uint32_t elem = 0;
    switch (dtype) {
        case ge::DT_FLOAT16: elem = 2; context->SetTilingKey(1); break;
        case ge::DT_FLOAT: elem = 4; context->SetTilingKey(2); break;
        default: return ge::GRAPH_FAILED;
    }
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint32_t cores = platform.GetCoreNumAiv();
    const uint32_t tile = TILE_BYTES / elem, align = BLOCK_BYTES / elem;
    uint32_t blocks = (total + tile - 1) / tile;
    blocks = blocks < 1 ? 1 : blocks > cores ? cores : blocks;
    uint32_t blockLength = (total + blocks - 1) / blocks;
    blockLength = (blockLength + align - 1) / align * align;
    blocks = (total + blockLength - 1) / blockLength;

    ScaleShiftTilingData tiling;
    tiling.set_totalLength(total);
    tiling.set_blockLength(blockLength);
    tiling.set_tileLength(tile);
    tiling.set_hasBias(context->GetOptionalInputShape(1) != nullptr ? 1 : 0);
    tiling.set_alpha(*attrs->GetAttrPointer<float>(0));
    tiling.set_beta(*attrs->GetFloat(1));
    context->SetBlockDim(blocks);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = platform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
static graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class ScaleShift : public OpDef {
public:
    explicit ScaleShift(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND}).UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("bias").ParamType(OPTIONAL).DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("alpha").AttrType(OPTIONAL).Float(1.0);
        this->Attr("beta").AttrType(REQUIRED).Float();
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ScaleShift);
}  // namespace ops
