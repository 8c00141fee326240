// Test project (ascendcraft): a TilingFunc that misbehaves as its attribute `mode` says, to show how the
// host harness stops and reports it. 0: a normal tiling; 1: a null write (SIGSEGV); 2: a loop without
// end (the CPU-time limit); 3: opens a file (the sandbox); 4: returns GRAPH_FAILED; 5: calls exit();
// 6: throws; 7: saves a tiling struct larger than the tiling buffer.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(BadHostTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, totalLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(BadHost, BadHostTilingData)

BEGIN_TILING_DATA_DEF(HugeTilingData)
  TILING_DATA_FIELD_DEF_ARR(uint64_t, 9000, values);
END_TILING_DATA_DEF;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const int64_t mode = *context->GetAttrs()->GetInt(0);
    BadHostTilingData tiling;
    tiling.set_totalLength(static_cast<uint32_t>(context->GetInputShape(0)->GetStorageShape().GetShapeSize()));
    if (mode == 1) {
        volatile uint32_t* nowhere = nullptr;
        *nowhere = 1;
    } else if (mode == 2) {
        volatile uint64_t spins = 0;
        for (;;) {
            spins = spins + 1;
        }
    } else if (mode == 3) {
        FILE* f = std::fopen("/etc/hostname", "r");
        if (f != nullptr) {
            std::fclose(f);
        }
    } else if (mode == 4) {
        return ge::GRAPH_FAILED;
    } else if (mode == 5) {
        std::exit(3);
    } else if (mode == 6) {
        throw std::runtime_error("bad shape");
    } else if (mode == 7) {
        HugeTilingData huge;
        huge.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    }
    std::printf("tiling for %u elements\n", tiling.get_totalLength());
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class BadHost : public OpDef {
public:
    explicit BadHost(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("mode").AttrType(OPTIONAL).Int(0);
        this->AICore().SetTiling(optiling::TilingFunc);
    }
};
OP_ADD(BadHost);
}  // namespace ops
