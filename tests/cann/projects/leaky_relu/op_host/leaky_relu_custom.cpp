// Host side of the test operator: block dim and tile length from the platform and the shape.
#include "leaky_relu_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    LeakyReluCustomTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ub = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t cores = platform.GetCoreNumAiv();
    // 8-element (32-byte) chunks dealt over the cores; the last core takes the remainder
    uint32_t chunks = (total + 7) / 8;
    uint32_t blocks = chunks < cores ? (chunks == 0 ? 1 : chunks) : cores;
    uint32_t perBlock = (chunks + blocks - 1) / blocks * 8;
    uint32_t tile = static_cast<uint32_t>(ub / 4 / sizeof(float) / 8 * 8);  // 2 queues x 2 buffers
    if (tile > perBlock) tile = perBlock;
    context->SetBlockDim(blocks);
    tiling.set_totalLength(total);
    tiling.set_blockLength(perBlock);
    tiling.set_tileLength(tile);
    const float* slope = context->GetAttrs()->GetAttrPointer<float>(0);
    tiling.set_slope(*slope);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class LeakyReluCustom : public OpDef {
public:
    explicit LeakyReluCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("negative_slope").AttrType(OPTIONAL).Float(0.01);
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(LeakyReluCustom);
}  // namespace ops
