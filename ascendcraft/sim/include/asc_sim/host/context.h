// ascendcraft AscendC CPU simulator, host side: the gert contexts an op_host project's functions receive
// (exe_graph/runtime/*.h): Shape, StorageShape, StorageFormat, CompileTimeTensorDesc, Tensor, TilingData,
// ContinuousVector, RuntimeAttrs, ComputeNodeInfo and the Tiling, TilingParse, InferShape and InferDataType
// contexts.
//
// Method names, argument and return types follow the public metadef headers (inc/exe_graph/runtime/
// tiling_context.h, extended_kernel_context.h, infer_shape_context.h, infer_datatype_context.h,
// tiling_parse_context.h, shape.h, storage_shape.h, tensor.h, runtime_attrs.h, tiling_data.h,
// continuous_vector.h, compute_node_info.h). The classes are ascendcraft's own: they read an
// asc_sim_host::Node that the host harness fills from a case, instead of CANN's kernel-context layout.
// Indices follow CANN: GetInputShape/GetInputDesc/GetInputTensor count instantiated inputs (an absent
// optional input has none, a dynamic one as many as it has tensors); GetOptional*/GetDynamic* take the
// IR index (the OpDef's input order).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <vector>
#include "ge_types.h"
#include "platform.h"

namespace gert {
struct Shape {
public:
    static constexpr size_t kMaxDimNum = 25;
    static constexpr int64_t kInvalidDimValue = std::numeric_limits<int64_t>::min();

    Shape() : dim_num_(0), dims_{0} {}
    Shape(std::initializer_list<int64_t> args) : dim_num_(0), dims_{0} {
        if (args.size() > kMaxDimNum) return;
        for (int64_t a : args) dims_[dim_num_++] = a;
    }
    bool operator==(const Shape& o) const {
        if (dim_num_ != o.dim_num_) return false;
        for (size_t i = 0; i < dim_num_; ++i)
            if (dims_[i] != o.dims_[i]) return false;
        return true;
    }
    bool operator!=(const Shape& o) const { return !(*this == o); }
    // the number of elements; kInvalidDimValue on overflow (shape.h)
    int64_t GetShapeSize() const {
        int64_t n = 1;
        for (size_t i = 0; i < dim_num_; ++i)
            if (__builtin_mul_overflow(n, dims_[i], &n)) return kInvalidDimValue;
        return n;
    }
    bool IsScalar() const { return dim_num_ == 0; }
    size_t GetDimNum() const { return dim_num_; }
    void SetDimNum(size_t n) { dim_num_ = n < kMaxDimNum ? n : kMaxDimNum; }
    int64_t GetDim(size_t i) const { return i < kMaxDimNum ? dims_[i] : kInvalidDimValue; }
    int64_t operator[](size_t i) const { return GetDim(i); }
    void SetDim(size_t i, int64_t v) {
        if (i < kMaxDimNum) dims_[i] = v;
    }
    Shape& AppendDim(int64_t v) {
        if (dim_num_ < kMaxDimNum) dims_[dim_num_++] = v;
        return *this;
    }
    void SetScalar() { dim_num_ = 0; }

private:
    size_t dim_num_;
    int64_t dims_[kMaxDimNum];
};

class StorageShape {
public:
    StorageShape() = default;
    StorageShape(std::initializer_list<int64_t> origin, std::initializer_list<int64_t> storage)
        : origin_(origin), storage_(storage) {}
    StorageShape(const Shape& origin, const Shape& storage) : origin_(origin), storage_(storage) {}
    const Shape& GetOriginShape() const { return origin_; }
    const Shape& GetStorageShape() const { return storage_; }
    Shape& MutableOriginShape() { return origin_; }
    Shape& MutableStorageShape() { return storage_; }
    bool operator==(const StorageShape& o) const { return origin_ == o.origin_ && storage_ == o.storage_; }
    bool operator!=(const StorageShape& o) const { return !(*this == o); }

private:
    Shape origin_, storage_;
};

class StorageFormat {
public:
    StorageFormat() = default;
    StorageFormat(ge::Format origin, ge::Format storage) : origin_(origin), storage_(storage) {}
    ge::Format GetOriginFormat() const { return origin_; }
    ge::Format GetStorageFormat() const { return storage_; }
    void SetOriginFormat(ge::Format f) { origin_ = f; }
    void SetStorageFormat(ge::Format f) { storage_ = f; }

private:
    ge::Format origin_ = ge::FORMAT_ND, storage_ = ge::FORMAT_ND;
};

class CompileTimeTensorDesc {
public:
    ge::DataType GetDataType() const { return data_type_; }
    const StorageFormat& GetFormat() const { return format_; }
    ge::Format GetOriginFormat() const { return format_.GetOriginFormat(); }
    ge::Format GetStorageFormat() const { return format_.GetStorageFormat(); }
    void SetDataType(ge::DataType t) { data_type_ = t; }
    void SetOriginFormat(ge::Format f) { format_.SetOriginFormat(f); }
    void SetStorageFormat(ge::Format f) { format_.SetStorageFormat(f); }

private:
    ge::DataType data_type_ = ge::DT_UNDEFINED;
    StorageFormat format_;
};

enum TensorPlacement { kOnDeviceHbm, kOnHost, kFollowing, kTensorPlacementEnd };

// A tensor of the case: its shape, format and type, and its data only for the inputs the case gives
// values of (CANN gives data only for inputs registered as data-dependent, tiling_context.h).
class Tensor {
public:
    Tensor() = default;
    Tensor(const StorageShape& shape, const StorageFormat& format, ge::DataType t)
        : shape_(shape), format_(format), data_type_(t) {}
    int64_t GetShapeSize() const { return shape_.GetStorageShape().GetShapeSize(); }
    template <class T> const T* GetData() const { return static_cast<const T*>(addr_); }
    template <class T> T* GetData() { return static_cast<T*>(addr_); }
    const void* GetAddr() const { return addr_; }
    void* GetAddr() { return addr_; }
    size_t GetSize() const { return size_; }
    void SetSize(size_t n) { size_ = n; }
    ge::DataType GetDataType() const { return data_type_; }
    void SetDataType(ge::DataType t) { data_type_ = t; }
    const Shape& GetStorageShape() const { return shape_.GetStorageShape(); }
    Shape& MutableStorageShape() { return shape_.MutableStorageShape(); }
    const Shape& GetOriginShape() const { return shape_.GetOriginShape(); }
    Shape& MutableOriginShape() { return shape_.MutableOriginShape(); }
    const StorageShape& GetShape() const { return shape_; }
    StorageShape& GetShape() { return shape_; }
    ge::Format GetStorageFormat() const { return format_.GetStorageFormat(); }
    ge::Format GetOriginFormat() const { return format_.GetOriginFormat(); }
    void SetStorageFormat(ge::Format f) { format_.SetStorageFormat(f); }
    void SetOriginFormat(ge::Format f) { format_.SetOriginFormat(f); }
    const StorageFormat& GetFormat() const { return format_; }
    StorageFormat& MutableFormat() { return format_; }
    TensorPlacement GetPlacement() const { return kOnHost; }
    void AscSimSetData(void* addr, size_t size) {
        addr_ = addr;
        size_ = size;
    }

private:
    StorageShape shape_;
    StorageFormat format_;
    ge::DataType data_type_ = ge::DT_UNDEFINED;
    void* addr_ = nullptr;
    size_t size_ = 0;
};

// A fixed-capacity vector whose elements follow its header (continuous_vector.h); made only by the harness.
class ContinuousVector {
public:
    size_t GetSize() const { return size_; }
    ge::graphStatus SetSize(size_t n) {
        if (n > capacity_) return ge::GRAPH_FAILED;
        size_ = n;
        return ge::GRAPH_SUCCESS;
    }
    size_t GetCapacity() const { return capacity_; }
    const void* GetData() const { return elements_; }
    void* MutableData() { return elements_; }
    // storage for `capacity` elements of `elem` bytes each, the header at its start
    static std::unique_ptr<uint8_t[]> AscSimCreate(size_t capacity, size_t elem) {
        std::unique_ptr<uint8_t[]> p(new uint8_t[offsetof(ContinuousVector, elements_) + capacity * elem + 8]());
        auto* v = reinterpret_cast<ContinuousVector*>(p.get());
        v->capacity_ = capacity;
        v->size_ = 0;
        return p;
    }

private:
    size_t capacity_;
    size_t size_;
    alignas(8) uint8_t elements_[8];
};

template <class T> class TypedContinuousVector : private ContinuousVector {
public:
    using ContinuousVector::GetCapacity;
    using ContinuousVector::GetSize;
    using ContinuousVector::SetSize;
    T* MutableData() { return reinterpret_cast<T*>(ContinuousVector::MutableData()); }
    const T* GetData() const { return reinterpret_cast<const T*>(ContinuousVector::GetData()); }
};

// The tiling output buffer (tiling_data.h): GetData/GetCapacity for SaveToBuffer, SetDataSize after it.
class TilingData {
public:
    size_t GetCapacity() const { return capacity_; }
    size_t GetDataSize() const { return data_size_; }
    void SetDataSize(size_t n) { data_size_ = n; }
    void* GetData() { return data_; }
    const void* GetData() const { return data_; }
    template <class T> ge::graphStatus Append(const T& v) { return Append(&v, 1); }
    template <class T> ge::graphStatus Append(const T* v, size_t n) {
        size_t bytes = sizeof(T) * n;
        if (data_size_ + bytes > capacity_) return ge::GRAPH_FAILED;
        std::memcpy(static_cast<uint8_t*>(data_) + data_size_, v, bytes);
        data_size_ += bytes;
        return ge::GRAPH_SUCCESS;
    }
    void AscSimInit(void* data, size_t capacity) {
        data_ = data;
        capacity_ = capacity;
        data_size_ = 0;
    }

private:
    size_t capacity_ = 0;
    size_t data_size_ = 0;
    void* data_ = nullptr;
};
template <class T> TilingData& operator<<(TilingData& out, const T& v) {
    out.Append(v);
    return out;
}

// The op's attributes in the OpDef's order (runtime_attrs.h): int as int64_t, float as float, bool,
// str as chars, list_int/list_float/list_bool as a TypedContinuousVector.
class RuntimeAttrs {
public:
    template <class T> const T* GetAttrPointer(size_t i) const {
        return i < ptrs_.size() ? reinterpret_cast<const T*>(ptrs_[i]) : nullptr;
    }
    const int64_t* GetInt(size_t i) const { return GetAttrPointer<int64_t>(i); }
    const TypedContinuousVector<int64_t>* GetListInt(size_t i) const {
        return GetAttrPointer<TypedContinuousVector<int64_t>>(i);
    }
    const TypedContinuousVector<float>* GetListFloat(size_t i) const {
        return GetAttrPointer<TypedContinuousVector<float>>(i);
    }
    const TypedContinuousVector<bool>* GetListBool(size_t i) const {
        return GetAttrPointer<TypedContinuousVector<bool>>(i);
    }
    const char* GetStr(size_t i) const { return GetAttrPointer<char>(i); }
    const float* GetFloat(size_t i) const { return GetAttrPointer<float>(i); }
    const bool* GetBool(size_t i) const { return GetAttrPointer<bool>(i); }
    size_t GetAttrNum() const { return ptrs_.size(); }
    void AscSimAdd(const void* p) { ptrs_.push_back(p); }

private:
    std::vector<const void*> ptrs_;
};

class AnchorInstanceInfo {
public:
    AnchorInstanceInfo() = default;
    AnchorInstanceInfo(uint32_t start, uint32_t num) : start_(start), num_(num) {}
    uint32_t GetInstanceNum() const { return num_; }
    uint32_t GetInstanceStart() const { return start_; }
    void SetInstanceStart(uint32_t s) { start_ = s; }
    void SetInstantiationNum(uint32_t n) { num_ = n; }

private:
    uint32_t start_ = 0, num_ = 0;
};
}  // namespace gert

namespace asc_sim_host {
// What the contexts read and the tiling function writes: one op call, filled by the host harness.
struct Node {
    std::string type, name;
    std::vector<gert::AnchorInstanceInfo> in_ir, out_ir;                  // per IR input/output
    std::vector<gert::StorageShape> in_shapes, out_shapes;                // per instance
    std::vector<gert::Shape> in_plain, out_plain;                         // the InferShape view
    std::vector<gert::CompileTimeTensorDesc> in_desc, out_desc;
    std::vector<gert::Tensor> in_tensors;
    std::vector<ge::DataType> in_dtypes, out_dtypes;
    gert::RuntimeAttrs attrs;
    fe::PlatFormInfos* platform = nullptr;
    void* compile_info = nullptr;
    uint64_t tiling_key = 0;
    uint32_t block_dim = 0;
    bool need_atomic = false;
    int32_t tiling_cond = -1;
    uint32_t schedule_mode = 0;
    int32_t deterministic = 0;
    gert::TilingData* raw = nullptr;
    gert::ContinuousVector* workspace = nullptr;

    template <class T> static T* At(std::vector<T>& v, size_t i) { return i < v.size() ? &v[i] : nullptr; }
    // the instance index of IR input `ir`'s `rel`-th tensor, or -1
    long InInstance(size_t ir, size_t rel) const {
        if (ir >= in_ir.size() || rel >= in_ir[ir].GetInstanceNum()) return -1;
        return static_cast<long>(in_ir[ir].GetInstanceStart() + rel);
    }
};
}  // namespace asc_sim_host

namespace gert {
class ComputeNodeInfo {
public:
    explicit ComputeNodeInfo(asc_sim_host::Node* n) : n_(n) {}
    const char* GetNodeType() const { return n_->type.c_str(); }
    const char* GetNodeName() const { return n_->name.c_str(); }
    size_t GetIrInputsNum() const { return n_->in_ir.size(); }
    size_t GetIrOutputsNum() const { return n_->out_ir.size(); }
    size_t GetInputsNum() const { return n_->in_desc.size(); }
    size_t GetOutputsNum() const { return n_->out_desc.size(); }
    const AnchorInstanceInfo* GetInputInstanceInfo(size_t ir) const { return asc_sim_host::Node::At(n_->in_ir, ir); }
    const AnchorInstanceInfo* GetOutputInstanceInfo(size_t ir) const {
        return asc_sim_host::Node::At(n_->out_ir, ir);
    }
    const CompileTimeTensorDesc* GetInputTdInfo(size_t i) const { return asc_sim_host::Node::At(n_->in_desc, i); }
    const CompileTimeTensorDesc* GetOutputTdInfo(size_t i) const { return asc_sim_host::Node::At(n_->out_desc, i); }
    const RuntimeAttrs* GetAttrs() const { return &n_->attrs; }

private:
    asc_sim_host::Node* n_;
};

class ExtendedKernelContext {
public:
    explicit ExtendedKernelContext(asc_sim_host::Node* n) : n_(n), info_(n) {}
    const CompileTimeTensorDesc* GetInputDesc(size_t i) const { return asc_sim_host::Node::At(n_->in_desc, i); }
    const CompileTimeTensorDesc* GetOutputDesc(size_t i) const { return asc_sim_host::Node::At(n_->out_desc, i); }
    const CompileTimeTensorDesc* GetOptionalInputDesc(size_t ir) const { return GetDynamicInputDesc(ir, 0); }
    const CompileTimeTensorDesc* GetDynamicInputDesc(size_t ir, size_t rel) const {
        long i = n_->InInstance(ir, rel);
        return i < 0 ? nullptr : &n_->in_desc[i];
    }
    const AnchorInstanceInfo* GetIrInputInstanceInfo(size_t ir) const { return asc_sim_host::Node::At(n_->in_ir, ir); }
    const AnchorInstanceInfo* GetIrOutputInstanceInfo(size_t ir) const {
        return asc_sim_host::Node::At(n_->out_ir, ir);
    }
    size_t GetComputeNodeInputNum() const { return n_->in_desc.size(); }
    size_t GetComputeNodeOutputNum() const { return n_->out_desc.size(); }
    const RuntimeAttrs* GetAttrs() const { return &n_->attrs; }
    const char* GetNodeType() const { return n_->type.c_str(); }
    const char* GetNodeName() const { return n_->name.c_str(); }
    const ComputeNodeInfo* GetComputeNodeInfo() const { return &info_; }
    const char* GetKernelName() const { return n_->name.c_str(); }
    const char* GetKernelType() const { return n_->type.c_str(); }

protected:
    asc_sim_host::Node* n_;
    ComputeNodeInfo info_;
};

class TilingContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;
    const void* GetCompileInfo() const { return n_->compile_info; }
    template <class T> const T* GetCompileInfo() const { return static_cast<const T*>(n_->compile_info); }
    fe::PlatFormInfos* GetPlatformInfo() const { return n_->platform; }
    const StorageShape* GetInputShape(size_t i) const { return asc_sim_host::Node::At(n_->in_shapes, i); }
    const Tensor* GetInputTensor(size_t i) const { return asc_sim_host::Node::At(n_->in_tensors, i); }
    const StorageShape* GetOptionalInputShape(size_t ir) const { return GetDynamicInputShape(ir, 0); }
    const Tensor* GetOptionalInputTensor(size_t ir) const { return GetDynamicInputTensor(ir, 0); }
    const StorageShape* GetDynamicInputShape(size_t ir, size_t rel) const {
        long i = n_->InInstance(ir, rel);
        return i < 0 ? nullptr : &n_->in_shapes[i];
    }
    const Tensor* GetDynamicInputTensor(size_t ir, size_t rel) const {
        long i = n_->InInstance(ir, rel);
        return i < 0 ? nullptr : &n_->in_tensors[i];
    }
    const StorageShape* GetOutputShape(size_t i) const { return asc_sim_host::Node::At(n_->out_shapes, i); }
    ge::graphStatus SetTilingKey(uint64_t k) {
        n_->tiling_key = k;
        return ge::GRAPH_SUCCESS;
    }
    uint64_t GetTilingKey() const { return n_->tiling_key; }
    ge::graphStatus SetBlockDim(uint32_t d) {
        n_->block_dim = d;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetBlockDim() const { return n_->block_dim; }
    ge::graphStatus SetNeedAtomic(bool a) {
        n_->need_atomic = a;
        return ge::GRAPH_SUCCESS;
    }
    bool NeedAtomic() const { return n_->need_atomic; }
    ge::graphStatus SetTilingCond(int32_t c) {
        n_->tiling_cond = c;
        return ge::GRAPH_SUCCESS;
    }
    int32_t GetTilingCond() const { return n_->tiling_cond; }
    ge::graphStatus SetScheduleMode(uint32_t m) {
        n_->schedule_mode = m;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetScheduleMode() const { return n_->schedule_mode; }
    int32_t GetDeterministic() const { return n_->deterministic; }
    // sizeof(T) bytes of the tiling buffer as a T, the data size set to it (tiling_context.h)
    template <class T> T* GetTilingData() {
        if (n_->raw == nullptr || n_->raw->GetCapacity() < sizeof(T)) return nullptr;
        n_->raw->SetDataSize(sizeof(T));
        return reinterpret_cast<T*>(n_->raw->GetData());
    }
    TilingData* GetRawTilingData() { return n_->raw; }
    size_t* GetWorkspaceSizes(size_t count) {
        if (n_->workspace == nullptr || n_->workspace->SetSize(count) != ge::GRAPH_SUCCESS) return nullptr;
        return static_cast<size_t*>(n_->workspace->MutableData());
    }
    size_t GetWorkspaceNum() const { return n_->workspace ? n_->workspace->GetSize() : 0; }
};

class TilingParseContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;
    const char* GetCompiledJson() const { return "{}"; }
    template <class T> T* GetCompiledInfo() { return static_cast<T*>(n_->compile_info); }
    fe::PlatFormInfos* GetPlatformInfo() const { return n_->platform; }
};

class InferShapeContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;
    const Shape* GetInputShape(size_t i) const { return asc_sim_host::Node::At(n_->in_plain, i); }
    const Tensor* GetInputTensor(size_t i) const { return asc_sim_host::Node::At(n_->in_tensors, i); }
    const Shape* GetOptionalInputShape(size_t ir) const { return GetDynamicInputShape(ir, 0); }
    const Shape* GetDynamicInputShape(size_t ir, size_t rel) const {
        long i = n_->InInstance(ir, rel);
        return i < 0 ? nullptr : &n_->in_plain[i];
    }
    const Tensor* GetOptionalInputTensor(size_t ir) const {
        long i = n_->InInstance(ir, 0);
        return i < 0 ? nullptr : &n_->in_tensors[i];
    }
    Shape* GetOutputShape(size_t i) { return asc_sim_host::Node::At(n_->out_plain, i); }
};

// range.h: a shape's lower and upper bound (for dynamic shapes).
template <class T> class Range {
public:
    Range() = default;
    Range(T* min, T* max) : min_(min), max_(max) {}
    const T* GetMin() const { return min_; }
    const T* GetMax() const { return max_; }
    T* GetMin() { return min_; }
    T* GetMax() { return max_; }
    void SetMin(T* min) { min_ = min; }
    void SetMax(T* max) { max_ = max; }

private:
    T* min_ = nullptr;
    T* max_ = nullptr;
};

// InferShapeRange (infer_shape_range_context.h) compiles; the harness never calls it (shapes are known).
class InferShapeRangeContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;
    const Range<Shape>* GetInputShapeRange(size_t) const { return nullptr; }
    const Range<Shape>* GetOptionalInputShapeRange(size_t) const { return nullptr; }
    const Range<Shape>* GetDynamicInputShapeRange(size_t, size_t) const { return nullptr; }
    Range<Shape>* GetOutputShapeRange(size_t) { return nullptr; }
};

class InferDataTypeContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;
    ge::DataType GetInputDataType(size_t i) const { return i < n_->in_dtypes.size() ? n_->in_dtypes[i] : ge::DT_UNDEFINED; }
    ge::DataType GetOptionalInputDataType(size_t ir) const { return GetDynamicInputDataType(ir, 0); }
    ge::DataType GetDynamicInputDataType(size_t ir, size_t rel) const {
        long i = n_->InInstance(ir, rel);
        return i < 0 ? ge::DT_UNDEFINED : n_->in_dtypes[i];
    }
    ge::DataType GetOutputDataType(size_t i) const {
        return i < n_->out_dtypes.size() ? n_->out_dtypes[i] : ge::DT_UNDEFINED;
    }
    ge::graphStatus SetOutputDataType(size_t i, ge::DataType t) {
        if (i >= n_->out_dtypes.size()) return ge::GRAPH_FAILED;
        n_->out_dtypes[i] = t;
        return ge::GRAPH_SUCCESS;
    }
};
}  // namespace gert
