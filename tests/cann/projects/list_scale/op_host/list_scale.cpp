// Host side of the test operator: each tensor of the list x (up to 16) read from the context's
// dynamic input instances, one block per tensor.
#include "list_scale_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    ListScaleTilingData tiling;
    uint32_t count = 0;
    uint32_t elements[16] = {0};
    while (count < 16 && context->GetDynamicInputTensor(0, count) != nullptr) {
        elements[count] = static_cast<uint32_t>(context->GetDynamicInputTensor(0, count)->GetStorageShape().GetShapeSize());
        ++count;
    }
    if (count == 0) return ge::GRAPH_FAILED;
    tiling.set_count(count);
    tiling.set_elements(elements);
    tiling.set_scale(*context->GetAttrs()->GetAttrPointer<float>(0));
    context->SetBlockDim(count);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class ListScale : public OpDef {
public:
    explicit ListScale(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("scale").AttrType(OPTIONAL).Float(2.0);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ListScale);
}  // namespace ops
