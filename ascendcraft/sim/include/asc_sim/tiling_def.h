// ascendcraft AscendC CPU simulator: the tiling-data macros (BEGIN_TILING_DATA_DEF ...) and TCubeTiling,
// shared by the kernel side (asc_sim/tiling.h adds GET_TILING_DATA) and the host side (op_host code run
// by the host harness, ascendcraft/sim/host/host_main.cpp).
//
// A tiling struct is a plain C++ struct (same layout as the declaration order) plus a compile-time field
// visitor, so the harness can fill it from the runner's {name: value} dict. The host and the kernel use
// the same struct, so the bytes a TilingFunc saves are the bytes GET_TILING_DATA reads. CANN's host class
// (metadef register/tilingdata_base.h) packs the fields without padding; the two layouts agree when every
// field is naturally aligned, which the TilingData docs require (TilingData结构定义.md).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

// On the host (ASC_SIM_HOST) fields start at zero, as CANN's host class does (`field_ = 0`), and a
// SaveToBuffer into too small a buffer is reported (CANN's memcpy_s fails there and logs an error).
#ifdef ASC_SIM_HOST
namespace asc_sim_host {
void tiling_save_check(const char* cls, const void* dst, size_t bytes, size_t capacity);
}
#define ASC_SIM_TD_INIT_ {}
#define ASC_SIM_TD_SAVE_CHECK_(cls, p, bytes, cap) ::asc_sim_host::tiling_save_check(cls, p, bytes, cap)
#else
#define ASC_SIM_TD_INIT_
#define ASC_SIM_TD_SAVE_CHECK_(cls, p, bytes, cap) ((void)0)
#endif

namespace asc_sim {
struct NoDefaultTiling {};
template <int N> struct TIdx {};
}  // namespace asc_sim

#define ASC_SIM_TD_BEGIN2_(name, c)                                                                                   \
    struct name {                                                                                                     \
        static constexpr int asc_first_ = c;                                                                          \
        template <class V, int N> void asc_visit_(V&, asc_sim::TIdx<N>) {}                                            \
        template <class V> void asc_visit_all(V& v) { asc_visit_(v, asc_sim::TIdx<c + 1>{}); }                        \
        static const char* asc_type_name() { return #name; }                                                          \
        void SaveToBuffer(void* p, size_t cap) const {                                                                \
            ASC_SIM_TD_SAVE_CHECK_(#name, p, sizeof(*this), cap);                                                     \
            if (p != nullptr) std::memcpy(p, this, sizeof(*this) < cap ? sizeof(*this) : cap);                        \
        }                                                                                                             \
        size_t GetDataSize() const { return sizeof(*this); }
#define ASC_SIM_TD_BEGIN_(name, c) ASC_SIM_TD_BEGIN2_(name, c)
#define BEGIN_TILING_DATA_DEF(name) ASC_SIM_TD_BEGIN_(name, __COUNTER__)

#define ASC_SIM_TD_FIELD2_(type, field, c)                                                                            \
    type field ASC_SIM_TD_INIT_;                                                                                      \
    void set_##field(type v) { field = v; }                                                                           \
    type get_##field() const { return field; }                                                                        \
    template <class V> void asc_visit_(V& v, asc_sim::TIdx<c>) {                                                      \
        v.scalar(#field, field);                                                                                      \
        asc_visit_(v, asc_sim::TIdx<c + 1>{});                                                                        \
    }
#define ASC_SIM_TD_FIELD_(type, field, c) ASC_SIM_TD_FIELD2_(type, field, c)
#define TILING_DATA_FIELD_DEF(type, field) ASC_SIM_TD_FIELD_(type, field, __COUNTER__)

#define ASC_SIM_TD_ARR2_(type, n, field, c)                                                                           \
    type field[n] ASC_SIM_TD_INIT_;                                                                                   \
    void set_##field(const type* v) { std::memcpy(field, v, sizeof(field)); }                                         \
    type* get_##field() { return field; }                                                                             \
    const type* get_##field() const { return field; }                                                                 \
    template <class V> void asc_visit_(V& v, asc_sim::TIdx<c>) {                                                      \
        v.array(#field, field, n);                                                                                    \
        asc_visit_(v, asc_sim::TIdx<c + 1>{});                                                                        \
    }
#define ASC_SIM_TD_ARR_(type, n, field, c) ASC_SIM_TD_ARR2_(type, n, field, c)
#define TILING_DATA_FIELD_DEF_ARR(type, n, field) ASC_SIM_TD_ARR_(type, n, field, __COUNTER__)

#define ASC_SIM_TD_STRUCT2_(type, field, c)                                                                           \
    type field ASC_SIM_TD_INIT_;                                                                                      \
    void set_##field(const type& v) { field = v; }                                                                    \
    const type& get_##field() const { return field; }                                                                 \
    template <class V> void asc_visit_(V& v, asc_sim::TIdx<c>) {                                                      \
        v.nested(#field, field);                                                                                      \
        asc_visit_(v, asc_sim::TIdx<c + 1>{});                                                                        \
    }
#define ASC_SIM_TD_STRUCT_(type, field, c) ASC_SIM_TD_STRUCT2_(type, field, c)
#define TILING_DATA_FIELD_DEF_STRUCT(type, field) ASC_SIM_TD_STRUCT_(type, field, __COUNTER__)

#define END_TILING_DATA_DEF };  // with its `;`, as metadef's: `END_TILING_DATA_DEF;` leaves an empty declaration
#define REGISTER_TILING_DATA_CLASS(op, cls) using asc_sim_registered_tiling_##op = cls;
#define REGISTER_TILING_DEFAULT(cls)
#define REGISTER_TILING_FOR_TILINGKEY(k, cls)


namespace optiling {}

// TCubeTiling: the Matmul tiling struct (int32 fields, in the documented order).
BEGIN_TILING_DATA_DEF(TCubeTiling)
TILING_DATA_FIELD_DEF(int32_t, usedCoreNum);
TILING_DATA_FIELD_DEF(int32_t, M);
TILING_DATA_FIELD_DEF(int32_t, N);
TILING_DATA_FIELD_DEF(int32_t, Ka);
TILING_DATA_FIELD_DEF(int32_t, Kb);
TILING_DATA_FIELD_DEF(int32_t, singleCoreM);
TILING_DATA_FIELD_DEF(int32_t, singleCoreN);
TILING_DATA_FIELD_DEF(int32_t, singleCoreK);
TILING_DATA_FIELD_DEF(int32_t, baseM);
TILING_DATA_FIELD_DEF(int32_t, baseN);
TILING_DATA_FIELD_DEF(int32_t, baseK);
TILING_DATA_FIELD_DEF(int32_t, depthA1);
TILING_DATA_FIELD_DEF(int32_t, depthB1);
TILING_DATA_FIELD_DEF(int32_t, stepM);
TILING_DATA_FIELD_DEF(int32_t, stepN);
TILING_DATA_FIELD_DEF(int32_t, isBias);
TILING_DATA_FIELD_DEF(int32_t, transLength);
TILING_DATA_FIELD_DEF(int32_t, iterateOrder);
TILING_DATA_FIELD_DEF(int32_t, shareMode);
TILING_DATA_FIELD_DEF(int32_t, shareL1Size);
TILING_DATA_FIELD_DEF(int32_t, shareL0CSize);
TILING_DATA_FIELD_DEF(int32_t, shareUbSize);
TILING_DATA_FIELD_DEF(int32_t, batchM);
TILING_DATA_FIELD_DEF(int32_t, batchN);
TILING_DATA_FIELD_DEF(int32_t, singleBatchM);
TILING_DATA_FIELD_DEF(int32_t, singleBatchN);
TILING_DATA_FIELD_DEF(int32_t, stepKa);
TILING_DATA_FIELD_DEF(int32_t, stepKb);
TILING_DATA_FIELD_DEF(int32_t, depthAL1CacheUB);
TILING_DATA_FIELD_DEF(int32_t, depthBL1CacheUB);
TILING_DATA_FIELD_DEF(int32_t, dbL0A);
TILING_DATA_FIELD_DEF(int32_t, dbL0B);
TILING_DATA_FIELD_DEF(int32_t, dbL0C);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoB);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoS);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoN);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoG);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoD);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoB);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoS);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoN);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoG);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoD);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoB);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoS1);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoN);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoG);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoS2);
TILING_DATA_FIELD_DEF(int32_t, BatchNum);
TILING_DATA_FIELD_DEF(int32_t, mxTypePara);
END_TILING_DATA_DEF;
