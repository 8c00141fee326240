// Host side of the test operator: rows dealt over at most 8 blocks (fewer than the cores).
#include "scale_by_gamma_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    ScaleByGammaTilingData tiling;
    const gert::Shape& x = context->GetInputShape(0)->GetStorageShape();
    uint32_t cols = static_cast<uint32_t>(x.GetDim(x.GetDimNum() - 1));
    uint32_t rows = static_cast<uint32_t>(x.GetShapeSize() / cols);
    uint32_t blocks = rows < 8 ? rows : 8;
    if (blocks == 0) blocks = 1;
    tiling.set_rows(rows);
    tiling.set_cols(cols);
    tiling.set_rowsPerBlock((rows + blocks - 1) / blocks);
    context->SetBlockDim(blocks);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    *context->GetOutputShape(1) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class ScaleByGamma : public OpDef {
public:
    explicit ScaleByGamma(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("gamma").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("x_out").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ScaleByGamma);
}  // namespace ops
