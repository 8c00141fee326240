// Stub of CANN's register/op_def_registry.h: the tiling/infer contexts and OpDef chain the
// generated op_host file uses (names from the MultiKernelBench prompts and AscendC host docs).
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace fe { class PlatFormInfos; }

namespace ge {
using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
enum DataType { DT_FLOAT, DT_FLOAT16, DT_BF16, DT_INT8, DT_INT16, DT_INT32, DT_INT64, DT_UINT8, DT_BOOL };
enum Format { FORMAT_ND };
}  // namespace ge

namespace gert {
class Shape {
public:
    int64_t GetDim(size_t index) const;
    size_t GetDimNum() const;
    void SetDimNum(size_t num);
    void SetDim(size_t index, int64_t value);
};
class StorageShape {
public:
    const Shape& GetStorageShape() const;
};
class RuntimeAttrs {
public:
    template <typename T> const T* GetAttrPointer(size_t index) const;
};
class TilingData {
public:
    void* GetData();
    size_t GetCapacity() const;
    void SetDataSize(size_t size);
};
class CompileTimeTensorDesc {
public:
    ge::DataType GetDataType() const;
};
class TilingContext {
public:
    const CompileTimeTensorDesc* GetInputDesc(size_t index) const;
    ge::graphStatus SetTilingKey(uint64_t key);
    const StorageShape* GetInputShape(size_t index) const;
    const StorageShape* GetOutputShape(size_t index) const;
    const RuntimeAttrs* GetAttrs() const;
    fe::PlatFormInfos* GetPlatformInfo() const;
    ge::graphStatus SetBlockDim(uint32_t blockDim);
    TilingData* GetRawTilingData();
    size_t* GetWorkspaceSizes(size_t count);
};
class InferShapeContext {
public:
    const Shape* GetInputShape(size_t index) const;
    Shape* GetOutputShape(size_t index);
    const RuntimeAttrs* GetAttrs() const;
};
class InferDataTypeContext {
public:
    ge::DataType GetInputDataType(size_t index) const;
    ge::graphStatus SetOutputDataType(size_t index, ge::DataType dtype);
};
}  // namespace gert

namespace ops {
enum Option { REQUIRED, OPTIONAL };
class OpParamDef {
public:
    OpParamDef& ParamType(Option option);
    OpParamDef& DataType(std::initializer_list<ge::DataType> types);
    OpParamDef& Format(std::initializer_list<ge::Format> formats);
    OpParamDef& UnknownShapeFormat(std::initializer_list<ge::Format> formats);
};
class OpAttrDef {
public:
    OpAttrDef& AttrType(Option option);
    OpAttrDef& Float();
    OpAttrDef& Float(float value);
    OpAttrDef& Int();
    OpAttrDef& Int(int64_t value);
    OpAttrDef& Bool();
    OpAttrDef& Bool(bool value);
};
class OpAICoreDef {
public:
    OpAICoreDef& SetTiling(ge::graphStatus (*func)(gert::TilingContext*));
    OpAICoreDef& AddConfig(const char* soc);
};
class OpDef {
public:
    explicit OpDef(const char* type);
    OpParamDef& Input(const char* name);
    OpParamDef& Output(const char* name);
    OpAttrDef& Attr(const char* name);
    OpDef& SetInferShape(ge::graphStatus (*func)(gert::InferShapeContext*));
    OpDef& SetInferDataType(ge::graphStatus (*func)(gert::InferDataTypeContext*));
    OpAICoreDef& AICore();
};
}  // namespace ops

#define OP_ADD(opType) static ops::opType g_##opType##Registered(#opType)
