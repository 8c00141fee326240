// ascendcraft AscendC CPU simulator, host side: the ge namespace of an op_host project (graph/types.h,
// graph/ge_error_codes.h, graph/ascend_string.h, graph/utils/type_utils.h).
//
// Names and numbers are those of the public metadef headers (inc/external/graph/types.h: DataType up to
// DT_MAX = 43, Format, GetSizeByDataType; inc/external/graph/ge_error_codes.h: graphStatus) and of the
// kernel-side copy in asc-devkit include/basic_api/kernel_type.h. The code is ascendcraft's own.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#ifndef VAR_UNUSED
#define VAR_UNUSED __attribute__((unused))
#endif

namespace ge {
using char_t = char;
using float32_t = float;
using float64_t = double;

using graphStatus = uint32_t;
const graphStatus GRAPH_FAILED = 0xFFFFFFFF;
const graphStatus GRAPH_SUCCESS = 0;
const graphStatus GRAPH_NOT_CHANGED = 1343242304;
const graphStatus GRAPH_PARAM_INVALID = 50331649;
const graphStatus GRAPH_NODE_WITHOUT_CONST_INPUT = 50331648;
// ge::Status codes of GE's ge_api_error_codes.h that op_host code compares with
using Status = uint32_t;
const Status SUCCESS = 0;
const Status FAILED = 0xFFFFFFFF;

// graph/types.h: a dimension or rank not known before run time
static const int64_t UNKNOWN_DIM = -1;
static const int64_t UNKNOWN_DIM_NUM = -2;
static const std::vector<int64_t> UNKNOWN_SHAPE = {-1};
static const std::vector<int64_t> UNKNOWN_RANK = {-2};

enum DataType {
    DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 6, DT_UINT16 = 7, DT_UINT32 = 8,
    DT_INT64 = 9, DT_UINT64 = 10, DT_DOUBLE = 11, DT_BOOL = 12, DT_STRING = 13, DT_DUAL_SUB_INT8 = 14,
    DT_DUAL_SUB_UINT8 = 15, DT_COMPLEX64 = 16, DT_COMPLEX128 = 17, DT_QINT8 = 18, DT_QINT16 = 19, DT_QINT32 = 20,
    DT_QUINT8 = 21, DT_QUINT16 = 22, DT_RESOURCE = 23, DT_STRING_REF = 24, DT_DUAL = 25, DT_VARIANT = 26, DT_BF16 = 27,
    DT_UNDEFINED = 28, DT_INT4 = 29, DT_UINT1 = 30, DT_INT2 = 31, DT_UINT2 = 32, DT_COMPLEX32 = 33, DT_HIFLOAT8 = 34,
    DT_FLOAT8_E5M2 = 35, DT_FLOAT8_E4M3FN = 36, DT_FLOAT8_E8M0 = 37, DT_FLOAT6_E3M2 = 38, DT_FLOAT6_E2M3 = 39,
    DT_FLOAT4_E2M1 = 40, DT_FLOAT4_E1M2 = 41, DT_HIFLOAT4 = 42, DT_MAX = 43
};

enum Format {
    FORMAT_NCHW = 0, FORMAT_NHWC, FORMAT_ND, FORMAT_NC1HWC0, FORMAT_FRACTAL_Z, FORMAT_NC1C0HWPAD = 5, FORMAT_NHWC1C0,
    FORMAT_FSR_NCHW, FORMAT_FRACTAL_DECONV, FORMAT_C1HWNC0, FORMAT_FRACTAL_DECONV_TRANSPOSE = 10,
    FORMAT_FRACTAL_DECONV_SP_STRIDE_TRANS, FORMAT_NC1HWC0_C04, FORMAT_FRACTAL_Z_C04, FORMAT_CHWN,
    FORMAT_FRACTAL_DECONV_SP_STRIDE8_TRANS = 15, FORMAT_HWCN, FORMAT_NC1KHKWHWC0, FORMAT_BN_WEIGHT, FORMAT_FILTER_HWCK,
    FORMAT_HASHTABLE_LOOKUP_LOOKUPS = 20, FORMAT_HASHTABLE_LOOKUP_KEYS, FORMAT_HASHTABLE_LOOKUP_VALUE,
    FORMAT_HASHTABLE_LOOKUP_OUTPUT, FORMAT_HASHTABLE_LOOKUP_HITS, FORMAT_C1HWNCoC0 = 25, FORMAT_MD, FORMAT_NDHWC,
    FORMAT_FRACTAL_ZZ, FORMAT_FRACTAL_NZ, FORMAT_NCDHW = 30, FORMAT_DHWCN, FORMAT_NDC1HWC0, FORMAT_FRACTAL_Z_3D,
    FORMAT_CN, FORMAT_NC = 35, FORMAT_DHWNC, FORMAT_FRACTAL_Z_3D_TRANSPOSE, FORMAT_FRACTAL_ZN_LSTM, FORMAT_FRACTAL_Z_G,
    FORMAT_RESERVED = 40, FORMAT_ALL, FORMAT_NULL, FORMAT_ND_RNN_BIAS, FORMAT_FRACTAL_ZN_RNN, FORMAT_NYUV,
    FORMAT_NYUV_A, FORMAT_NCL, FORMAT_END, FORMAT_MAX = 0xff
};

// A format's primary part is its low byte, a sub-format (C0 and the like) the next 16 bits (types.h)
inline int32_t GetPrimaryFormat(int32_t format) { return static_cast<int32_t>(static_cast<uint32_t>(format) & 0xffU); }
inline int32_t GetSubFormat(int32_t format) { return static_cast<int32_t>((static_cast<uint32_t>(format) & 0xffff00U) >> 8); }
inline bool HasSubFormat(int32_t format) { return GetSubFormat(format) > 0; }
inline int32_t GetFormatFromSub(int32_t primary, int32_t sub) {
    return static_cast<int32_t>((static_cast<uint32_t>(primary) & 0xffU) | ((static_cast<uint32_t>(sub) & 0xffffU) << 8));
}

// Bytes per element; -1 for types without a fixed size (strings, resources), and for the sub-byte types
// the size in bits plus kDataTypeSizeBitOffset, as metadef's GetSizeByDataType does.
constexpr int32_t kDataTypeSizeBitOffset = 1000;
inline int GetSizeByDataType(DataType t) {
    switch (t) {
        case DT_FLOAT: case DT_INT32: case DT_UINT32: case DT_QINT32: case DT_COMPLEX32: return 4;
        case DT_FLOAT16: case DT_INT16: case DT_UINT16: case DT_BF16: case DT_QINT16: case DT_QUINT16: return 2;
        case DT_INT8: case DT_UINT8: case DT_BOOL: case DT_DUAL_SUB_INT8: case DT_DUAL_SUB_UINT8: case DT_QINT8:
        case DT_QUINT8: case DT_HIFLOAT8: case DT_FLOAT8_E5M2: case DT_FLOAT8_E4M3FN: case DT_FLOAT8_E8M0: return 1;
        case DT_INT64: case DT_UINT64: case DT_DOUBLE: case DT_COMPLEX64: return 8;
        case DT_COMPLEX128: return 16;
        case DT_DUAL: return 5;
        case DT_INT4: case DT_FLOAT4_E2M1: case DT_FLOAT4_E1M2: case DT_HIFLOAT4: return kDataTypeSizeBitOffset + 4;
        case DT_UINT1: return kDataTypeSizeBitOffset + 1;
        case DT_INT2: case DT_UINT2: return kDataTypeSizeBitOffset + 2;
        case DT_FLOAT6_E3M2: case DT_FLOAT6_E2M3: return kDataTypeSizeBitOffset + 6;
        default: return -1;
    }
}

class AscendString {
public:
    AscendString() = default;
    AscendString(const char* s) : s_(s ? s : "") {}  // NOLINT: implicit, as metadef's
    const char* GetString() const { return s_.c_str(); }
    size_t GetLength() const { return s_.size(); }
    bool operator<(const AscendString& o) const { return s_ < o.s_; }
    bool operator==(const AscendString& o) const { return s_ == o.s_; }
    bool operator!=(const AscendString& o) const { return s_ != o.s_; }

private:
    std::string s_;
};

namespace asc_sim_names {
inline const char* DataTypeName(DataType t) {
    static const char* const names[] = {
        "DT_FLOAT", "DT_FLOAT16", "DT_INT8", "DT_INT32", "DT_UINT8", "DT_UNDEFINED", "DT_INT16", "DT_UINT16",
        "DT_UINT32", "DT_INT64", "DT_UINT64", "DT_DOUBLE", "DT_BOOL", "DT_STRING", "DT_DUAL_SUB_INT8",
        "DT_DUAL_SUB_UINT8", "DT_COMPLEX64", "DT_COMPLEX128", "DT_QINT8", "DT_QINT16", "DT_QINT32", "DT_QUINT8",
        "DT_QUINT16", "DT_RESOURCE", "DT_STRING_REF", "DT_DUAL", "DT_VARIANT", "DT_BF16", "DT_UNDEFINED", "DT_INT4",
        "DT_UINT1", "DT_INT2", "DT_UINT2", "DT_COMPLEX32", "DT_HIFLOAT8", "DT_FLOAT8_E5M2", "DT_FLOAT8_E4M3FN",
        "DT_FLOAT8_E8M0", "DT_FLOAT6_E3M2", "DT_FLOAT6_E2M3", "DT_FLOAT4_E2M1", "DT_FLOAT4_E1M2", "DT_HIFLOAT4"};
    return t >= 0 && t < DT_MAX ? names[t] : "DT_UNDEFINED";
}
inline const char* FormatName(Format f) {
    switch (f) {
        case FORMAT_NCHW: return "NCHW";
        case FORMAT_NHWC: return "NHWC";
        case FORMAT_ND: return "ND";
        case FORMAT_NC1HWC0: return "NC1HWC0";
        case FORMAT_FRACTAL_Z: return "FRACTAL_Z";
        case FORMAT_HWCN: return "HWCN";
        case FORMAT_NDHWC: return "NDHWC";
        case FORMAT_FRACTAL_NZ: return "FRACTAL_NZ";
        case FORMAT_NCDHW: return "NCDHW";
        case FORMAT_NDC1HWC0: return "NDC1HWC0";
        case FORMAT_FRACTAL_Z_3D: return "FRACTAL_Z_3D";
        case FORMAT_NC: return "NC";
        case FORMAT_NCL: return "NCL";
        default: return "RESERVED";
    }
}
}  // namespace asc_sim_names

// graph/tensor.h: the graph API's shape (what the adv-API tiling helpers take)
class Shape {
public:
    Shape() = default;
    explicit Shape(const std::vector<int64_t>& dims) : dims_(dims) {}
    size_t GetDimNum() const { return dims_.size(); }
    int64_t GetDim(size_t i) const { return i < dims_.size() ? dims_[i] : 0; }
    graphStatus SetDim(size_t i, int64_t v) {
        if (i >= dims_.size()) return GRAPH_FAILED;
        dims_[i] = v;
        return GRAPH_SUCCESS;
    }
    std::vector<int64_t> GetDims() const { return dims_; }
    int64_t GetShapeSize() const {
        if (dims_.empty()) return 0;
        int64_t n = 1;
        for (int64_t d : dims_) n *= d;
        return n;
    }

private:
    std::vector<int64_t> dims_;
};

// graph/utils/type_utils.h
class TypeUtils {
public:
    static bool GetDataTypeLength(DataType t, uint32_t& length) {
        int n = GetSizeByDataType(t);
        if (n <= 0) return false;
        length = static_cast<uint32_t>(n);
        return true;
    }
    static std::string DataTypeToSerialString(DataType t) { return asc_sim_names::DataTypeName(t); }
    static std::string FormatToSerialString(Format f) { return asc_sim_names::FormatName(f); }
    static DataType SerialStringToDataType(const std::string& s) {
        for (int i = 0; i < DT_MAX; ++i)
            if (s == asc_sim_names::DataTypeName(static_cast<DataType>(i))) return static_cast<DataType>(i);
        return DT_UNDEFINED;
    }
    static AscendString DataTypeToAscendString(DataType t) { return AscendString(asc_sim_names::DataTypeName(t)); }
    static AscendString FormatToAscendString(Format f) { return AscendString(asc_sim_names::FormatName(f)); }
};
}  // namespace ge
