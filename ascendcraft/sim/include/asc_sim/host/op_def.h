// ascendcraft AscendC CPU simulator, host side: the op definition of an op_host project
// (register/op_def.h, op_def_registry.h, op_impl_registry.h): ops::OpDef with its builder chain,
// OP_ADD, gert::OpImplRegisterV2 with IMPL_OP / IMPL_OP_OPTILING / IMPL_OP_INFERSHAPE.
//
// Names and signatures follow the public metadef headers (inc/external/register/op_def.h,
// op_def_registry.h, op_impl_registry.h) and the asc-devkit docs (Utils-API/原型注册与管理/OpDef,
// OpParamDef, OpAttrDef, OpAICoreDef, OpAICoreConfig, OP_ADD). What they record is read by the host
// harness (ascendcraft/sim/host/host_main.cpp): OP_ADD registers a factory that the harness calls only
// after it has installed the sandbox, and OpImplRegisterV2 stores function pointers by op type.
#pragma once
#include <functional>
#include <iostream>  // CANN's op_def.h includes it, and op_host code relies on it
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>
#include "context.h"

// metadef's op_def.h includes the graph headers (operator_reg.h, operator.h, attr_value.h), which say these at
// global scope; op_host code relies on them
using std::function;
using std::make_shared;
using std::map;
using std::pair;
using std::shared_ptr;
using std::string;
using std::to_string;
using std::unique_ptr;
using std::vector;

namespace gert {
using InferShapeKernelFunc = uint32_t (*)(InferShapeContext*);
using InferDataTypeKernelFunc = uint32_t (*)(InferDataTypeContext*);
using TilingKernelFunc = uint32_t (*)(TilingContext*);
using TilingParseFunc = uint32_t (*)(TilingParseContext*);
using InferShapeRangeKernelFunc = uint32_t (*)(InferShapeRangeContext*);
struct OpImplKernelRegistry {
    using InferShapeKernelFunc = gert::InferShapeKernelFunc;
    using InferDataTypeKernelFunc = gert::InferDataTypeKernelFunc;
    using TilingKernelFunc = gert::TilingKernelFunc;
    using InferShapeRangeKernelFunc = gert::InferShapeRangeKernelFunc;
};
}  // namespace gert

namespace asc_sim_host {
// What IMPL_OP* and OpDef registered for one op type (max_tiling_data_size: OpImplRegisterV2::Tiling's
// argument, 2048 by default; the harness gives the TilingFunc at least 64 KiB, host_main.cpp says why).
struct OpImpl {
    gert::TilingKernelFunc tiling = nullptr;
    size_t max_tiling_data_size = 2048;
    gert::TilingParseFunc tiling_parse = nullptr;
    void* (*compile_info_create)() = nullptr;
    void (*compile_info_delete)(void*) = nullptr;
    gert::InferShapeKernelFunc infer_shape = nullptr;
    gert::InferDataTypeKernelFunc infer_dtype = nullptr;
    bool infer_dtype_first_input = false;
    std::vector<int32_t> data_dependency;
};
inline std::map<std::string, OpImpl>& op_impls() {
    static std::map<std::string, OpImpl> m;
    return m;
}
}  // namespace asc_sim_host

namespace ops {
enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };
enum class DependScope : uint32_t { ALL = 0, TILING = 1, INVALID_SCOPE };
enum class FormatCheckOption : uint32_t { DEFAULT = 0, STRICT = 1, MAX };

class OpParamDef {
public:
    explicit OpParamDef(const char* name) : name_(name ? name : "") {}
    OpParamDef& ParamType(Option t) {
        param_type_ = t;
        return *this;
    }
    OpParamDef& DataType(std::vector<ge::DataType> types) {
        dtypes_ = std::move(types);
        return *this;
    }
    OpParamDef& DataTypeList(std::vector<ge::DataType> types) {
        dtypes_ = std::move(types);
        dtype_list_ = true;
        return *this;
    }
    OpParamDef& Format(std::vector<ge::Format> formats) {
        formats_ = std::move(formats);
        return *this;
    }
    OpParamDef& FormatList(std::vector<ge::Format> formats) {
        formats_ = std::move(formats);
        format_list_ = true;
        return *this;
    }
    OpParamDef& UnknownShapeFormat(std::vector<ge::Format> formats) {
        unknown_formats_ = std::move(formats);
        return *this;
    }
    OpParamDef& ValueDepend(Option v) {
        value_depend_ = v;
        return *this;
    }
    OpParamDef& ValueDepend(Option v, DependScope) { return ValueDepend(v); }
    OpParamDef& IgnoreContiguous() { return *this; }
    OpParamDef& AutoContiguous() { return *this; }
    OpParamDef& Scalar() {
        scalar_ = true;
        return *this;
    }
    OpParamDef& ScalarList() {
        scalar_list_ = true;
        return *this;
    }
    OpParamDef& To(const ge::DataType) { return *this; }
    OpParamDef& To(const char*) { return *this; }
    OpParamDef& Follow(const char* name) {
        follow_ = name ? name : "";
        return *this;
    }
    OpParamDef& OutputShapeDependOnCompute() { return *this; }
    OpParamDef& InitValue(uint64_t) { return *this; }
    OpParamDef& InitValue(float) { return *this; }
    OpParamDef& Comment(const char*) { return *this; }

    const std::string& AscSimName() const { return name_; }
    Option AscSimParamType() const { return param_type_; }
    const std::vector<ge::DataType>& AscSimDataTypes() const { return dtypes_; }
    const std::vector<ge::Format>& AscSimFormats() const { return formats_; }
    bool AscSimDataTypeList() const { return dtype_list_; }
    bool AscSimValueDepend() const { return value_depend_ == REQUIRED || value_depend_ == OPTIONAL; }
    bool AscSimScalar() const { return scalar_ || scalar_list_; }
    const std::string& AscSimFollow() const { return follow_; }

private:
    std::string name_;
    Option param_type_ = REQUIRED;
    std::vector<ge::DataType> dtypes_;
    std::vector<ge::Format> formats_, unknown_formats_;
    bool dtype_list_ = false, format_list_ = false, scalar_ = false, scalar_list_ = false;
    Option value_depend_ = IGNORE;
    std::string follow_;
};

// An attribute: its type (the value call's kind), required or optional, and the default an optional one
// has. Bool values are kept in `ints`, a str in `str`; a list_list_int default only as JSON.
struct AttrValue {
    std::string kind = "unset";
    bool set = false;
    std::vector<int64_t> ints;
    std::vector<float> floats;
    std::string str;
    std::string json;  // list_list_int
};
class OpAttrDef {
public:
    explicit OpAttrDef(const char* name) : name_(name ? name : "") {}
    OpAttrDef& AttrType(Option t) {
        required_ = t == REQUIRED;
        return *this;
    }
    OpAttrDef& Bool() { return Kind("bool"); }
    OpAttrDef& Bool(bool v) { return Kind("bool", {v ? 1 : 0}); }
    OpAttrDef& Float() { return Kind("float"); }
    OpAttrDef& Float(float v) { return Kind("float", {}, {v}); }
    OpAttrDef& Int() { return Kind("int"); }
    OpAttrDef& Int(int64_t v) { return Kind("int", {v}); }
    OpAttrDef& String() { return Kind("str"); }
    OpAttrDef& String(const char* v) {
        Kind("str", {}, {}, true);
        value_.str = v ? v : "";
        return *this;
    }
    OpAttrDef& ListBool() { return Kind("list_bool"); }
    OpAttrDef& ListBool(std::vector<bool> v) { return Kind("list_bool", std::vector<int64_t>(v.begin(), v.end()), {}, true); }
    OpAttrDef& ListFloat() { return Kind("list_float"); }
    OpAttrDef& ListFloat(std::vector<float> v) { return Kind("list_float", {}, std::move(v), true); }
    OpAttrDef& ListInt() { return Kind("list_int"); }
    OpAttrDef& ListInt(std::vector<int64_t> v) { return Kind("list_int", std::move(v), {}, true); }
    OpAttrDef& ListListInt() { return Kind("list_list_int"); }
    OpAttrDef& ListListInt(std::vector<std::vector<int64_t>> v) {
        Kind("list_list_int", {}, {}, true);
        for (auto& row : v) {
            std::string r;
            for (int64_t i : row) r += (r.empty() ? "" : ",") + std::to_string(i);
            value_.json += (value_.json.empty() ? "[" : ",[") + r + "]";
        }
        value_.json = "[" + value_.json + "]";
        return *this;
    }
    OpAttrDef& Comment(const char*) { return *this; }
    OpAttrDef& Version(uint32_t) { return *this; }

    const std::string& AscSimName() const { return name_; }
    bool AscSimRequired() const { return required_; }
    const AttrValue& AscSimDefault() const { return value_; }

private:
    OpAttrDef& Kind(const char* k, std::vector<int64_t> ints = {}, std::vector<float> floats = {}, bool set = false) {
        value_ = AttrValue();
        value_.kind = k;
        value_.set = set || !ints.empty() || !floats.empty();
        value_.ints = std::move(ints);
        value_.floats = std::move(floats);
        return *this;
    }
    std::string name_;
    AttrValue value_;
    bool required_ = false;
};

class OpAICoreConfig {
public:
    OpAICoreConfig() = default;
    explicit OpAICoreConfig(const char*) {}
    OpParamDef& Input(const char* name) { return Param(inputs_, name); }
    OpParamDef& Output(const char* name) { return Param(outputs_, name); }
    OpAICoreConfig& DynamicCompileStaticFlag(bool) { return *this; }
    OpAICoreConfig& DynamicFormatFlag(bool) { return *this; }
    OpAICoreConfig& DynamicRankSupportFlag(bool) { return *this; }
    OpAICoreConfig& DynamicShapeSupportFlag(bool) { return *this; }
    OpAICoreConfig& NeedCheckSupportFlag(bool) { return *this; }
    OpAICoreConfig& PrecisionReduceFlag(bool) { return *this; }
    OpAICoreConfig& ExtendCfgInfo(const char*, const char*) { return *this; }
    std::vector<OpParamDef>& AscSimInputs() { return inputs_; }
    std::vector<OpParamDef>& AscSimOutputs() { return outputs_; }

private:
    static OpParamDef& Param(std::vector<OpParamDef>& v, const char* name) {
        for (auto& p : v)
            if (p.AscSimName() == (name ? name : "")) return p;
        v.emplace_back(name);
        return v.back();
    }
    std::vector<OpParamDef> inputs_, outputs_;
};

using OP_CHECK_FUNC = ge::graphStatus (*)(const void* op, ge::AscendString& result);

class OpAICoreDef {
public:
    OpAICoreDef& SetTiling(gert::TilingKernelFunc f) {
        tiling_ = f;
        return *this;
    }
    template <class F> OpAICoreDef& SetCheckSupport(F) { return *this; }
    template <class F> OpAICoreDef& SetOpSelectFormat(F) { return *this; }
    template <class F> OpAICoreDef& SetOpSupportInfo(F) { return *this; }
    template <class F> OpAICoreDef& SetOpSpecInfo(F) { return *this; }
    template <class F> OpAICoreDef& SetParamGeneralize(F) { return *this; }
    OpAICoreDef& AddConfig(const char* soc) {
        configs_.emplace_back(soc ? soc : "", OpAICoreConfig());
        return *this;
    }
    OpAICoreDef& AddConfig(const char* soc, OpAICoreConfig& cfg) {
        configs_.emplace_back(soc ? soc : "", cfg);
        return *this;
    }
    gert::TilingKernelFunc& GetTiling() { return tiling_; }
    std::vector<std::pair<std::string, OpAICoreConfig>>& AscSimConfigs() { return configs_; }

private:
    gert::TilingKernelFunc tiling_ = nullptr;
    std::vector<std::pair<std::string, OpAICoreConfig>> configs_;
};

class OpDef {
public:
    explicit OpDef(const char* type) : type_(type ? type : "") {}
    virtual ~OpDef() = default;
    OpParamDef& Input(const char* name) { return Param(inputs_, name); }
    OpParamDef& Output(const char* name) { return Param(outputs_, name); }
    OpAttrDef& Attr(const char* name) {
        for (auto& a : attrs_)
            if (a.AscSimName() == (name ? name : "")) return a;
        attrs_.emplace_back(name);
        return attrs_.back();
    }
    OpDef& SetInferShape(gert::InferShapeKernelFunc f) {
        infer_shape_ = f;
        return *this;
    }
    OpDef& SetInferShapeRange(gert::InferShapeRangeKernelFunc) { return *this; }
    OpDef& SetInferDataType(gert::InferDataTypeKernelFunc f) {
        infer_dtype_ = f;
        return *this;
    }
    OpDef& Comment(const char*) { return *this; }
    OpDef& FormatMatchMode(FormatCheckOption) { return *this; }
    OpDef& EnableFallBack() { return *this; }
    void SetWorkspaceFlag(bool) {}
    OpAICoreDef& AICore() { return aicore_; }
    gert::InferShapeKernelFunc& GetInferShape() { return infer_shape_; }
    gert::InferDataTypeKernelFunc& GetInferDataType() { return infer_dtype_; }

    const std::string& AscSimType() const { return type_; }
    std::vector<OpParamDef>& AscSimInputs() { return inputs_; }
    std::vector<OpParamDef>& AscSimOutputs() { return outputs_; }
    std::vector<OpAttrDef>& AscSimAttrs() { return attrs_; }

private:
    static OpParamDef& Param(std::vector<OpParamDef>& v, const char* name) {
        for (auto& p : v)
            if (p.AscSimName() == (name ? name : "")) return p;
        v.emplace_back(name);
        return v.back();
    }
    std::string type_;
    std::vector<OpParamDef> inputs_, outputs_;
    std::vector<OpAttrDef> attrs_;
    gert::InferShapeKernelFunc infer_shape_ = nullptr;
    gert::InferDataTypeKernelFunc infer_dtype_ = nullptr;
    OpAICoreDef aicore_;
};
}  // namespace ops

namespace asc_sim_host {
// OP_ADD's registrations: the op type, and a factory the harness calls once the sandbox is on
struct OpDefEntry {
    std::string type;
    std::function<ops::OpDef()> make;
};
inline std::vector<OpDefEntry>& op_defs() {
    static std::vector<OpDefEntry> v;
    return v;
}
inline int register_op_def(const char* type, std::function<ops::OpDef()> make) {
    op_defs().push_back(OpDefEntry{type, std::move(make)});
    return 0;
}
}  // namespace asc_sim_host

// OP_ADD(Op): registers Op's definition under its name (op_def_registry.h; the OpDef is made later, by the harness)
#define OP_ADD(opType, ...)                                                                                           \
    static int VAR_UNUSED g_asc_sim_##opType##_added =                                                                \
        ::asc_sim_host::register_op_def(#opType, []() -> ::ops::OpDef { return opType(#opType); })

namespace gert {
class OpImplRegisterV2 {
public:
    using InferShapeKernelFunc = gert::InferShapeKernelFunc;
    using InferDataTypeKernelFunc = gert::InferDataTypeKernelFunc;
    using TilingKernelFunc = gert::TilingKernelFunc;
    using TilingParseFunc = gert::TilingParseFunc;

    explicit OpImplRegisterV2(const char* op_type) : type_(op_type ? op_type : "") { Impl(); }
    OpImplRegisterV2& InferShape(InferShapeKernelFunc f) {
        Impl().infer_shape = f;
        return *this;
    }
    OpImplRegisterV2& InferShapeRange(InferShapeRangeKernelFunc) { return *this; }
    OpImplRegisterV2& InferDataType(InferDataTypeKernelFunc f) {
        Impl().infer_dtype = f;
        Impl().infer_dtype_first_input = false;
        return *this;
    }
    OpImplRegisterV2& InferOutDataTypeSameWithFirstInput() {
        Impl().infer_dtype = nullptr;
        Impl().infer_dtype_first_input = true;
        return *this;
    }
    OpImplRegisterV2& Tiling(TilingKernelFunc f, size_t max_tiling_data_size = 2048) {
        Impl().tiling = f;
        Impl().max_tiling_data_size = max_tiling_data_size;
        return *this;
    }
    template <class T> OpImplRegisterV2& TilingParse(TilingParseFunc f) {
        Impl().tiling_parse = f;
        Impl().compile_info_create = []() -> void* { return new T(); };
        Impl().compile_info_delete = [](void* p) { delete static_cast<T*>(p); };
        return *this;
    }
    OpImplRegisterV2& InputsDataDependency(std::initializer_list<int32_t> inputs) {
        Impl().data_dependency.insert(Impl().data_dependency.end(), inputs.begin(), inputs.end());
        return *this;
    }
    OpImplRegisterV2& TilingInputsDataDependency(std::initializer_list<int32_t> inputs) {
        return InputsDataDependency(inputs);
    }
    template <class P> OpImplRegisterV2& TilingInputsDataDependency(std::initializer_list<int32_t> inputs, P) {
        return InputsDataDependency(inputs);
    }
    OpImplRegisterV2& HostInputs(std::initializer_list<int32_t>) { return *this; }
    OpImplRegisterV2& OutputShapeDependOnCompute(std::initializer_list<int32_t>) { return *this; }
    template <class... A> OpImplRegisterV2& PrivateAttr(A&&...) { return *this; }
    template <class F> OpImplRegisterV2& GenSimplifiedKey(F) { return *this; }

private:
    asc_sim_host::OpImpl& Impl() { return asc_sim_host::op_impls()[type_]; }
    std::string type_;
};
using OpImplRegister = OpImplRegisterV2;
}  // namespace gert

#define ASC_SIM_IMPL_OP_CAT2_(a, b) a##b
#define ASC_SIM_IMPL_OP_CAT_(a, b) ASC_SIM_IMPL_OP_CAT2_(a, b)
#define IMPL_OP(op_type)                                                                                              \
    static gert::OpImplRegisterV2 VAR_UNUSED ASC_SIM_IMPL_OP_CAT_(op_impl_register_##op_type, __COUNTER__) =          \
        gert::OpImplRegisterV2(#op_type)
#define IMPL_OP_DEFAULT() IMPL_OP(DefaultImpl)
#define IMPL_OP_INFERSHAPE(op_type)                                                                                   \
    gert::OpImplRegisterV2 VAR_UNUSED op_impl_register_infershape_##op_type = gert::OpImplRegisterV2(#op_type)
#define IMPL_OP_OPTILING(op_type)                                                                                     \
    gert::OpImplRegisterV2 VAR_UNUSED op_impl_register_optiling_##op_type = gert::OpImplRegisterV2(#op_type)

namespace optiling {
using gert::OpImplRegisterV2;
}
