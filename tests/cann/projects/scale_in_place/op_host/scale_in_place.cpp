// Host side of the test operator: one block; the scale is an attribute.
#include "scale_in_place_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    ScaleInPlaceTilingData tiling;
    tiling.set_n(static_cast<uint32_t>(context->GetInputShape(0)->GetStorageShape().GetShapeSize()));
    tiling.set_scale(*context->GetAttrs()->GetAttrPointer<float>(0));
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class ScaleInPlace : public OpDef {
public:
    explicit ScaleInPlace(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("scale").AttrType(OPTIONAL).Float(2.0);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ScaleInPlace);
}  // namespace ops
