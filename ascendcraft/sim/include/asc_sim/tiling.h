// ascendcraft AscendC CPU simulator: tiling-data macros (BEGIN_TILING_DATA_DEF ...), GET_TILING_DATA.
//
// A tiling struct is a plain C++ struct (same layout as the declaration order) plus a
// compile-time field visitor, so the harness can fill it from the runner's {name: value} dict.
#pragma once
#include "schedule.h"   // gm_check (declared; the host side never instantiates load_tiling)

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
        void SaveToBuffer(void* p, size_t cap) const { std::memcpy(p, this, sizeof(*this) < cap ? sizeof(*this) : cap); }\
        size_t GetDataSize() const { return sizeof(*this); }
#define ASC_SIM_TD_BEGIN_(name, c) ASC_SIM_TD_BEGIN2_(name, c)
#define BEGIN_TILING_DATA_DEF(name) ASC_SIM_TD_BEGIN_(name, __COUNTER__)

#define ASC_SIM_TD_FIELD2_(type, field, c)                                                                            \
    type field;                                                                                                       \
    void set_##field(type v) { field = v; }                                                                           \
    type get_##field() const { return field; }                                                                        \
    template <class V> void asc_visit_(V& v, asc_sim::TIdx<c>) {                                                      \
        v.scalar(#field, field);                                                                                      \
        asc_visit_(v, asc_sim::TIdx<c + 1>{});                                                                        \
    }
#define ASC_SIM_TD_FIELD_(type, field, c) ASC_SIM_TD_FIELD2_(type, field, c)
#define TILING_DATA_FIELD_DEF(type, field) ASC_SIM_TD_FIELD_(type, field, __COUNTER__)

#define ASC_SIM_TD_ARR2_(type, n, field, c)                                                                           \
    type field[n];                                                                                                    \
    void set_##field(const type* v) { std::memcpy(field, v, sizeof(field)); }                                         \
    const type* get_##field() const { return field; }                                                                 \
    template <class V> void asc_visit_(V& v, asc_sim::TIdx<c>) {                                                      \
        v.array(#field, field, n);                                                                                    \
        asc_visit_(v, asc_sim::TIdx<c + 1>{});                                                                        \
    }
#define ASC_SIM_TD_ARR_(type, n, field, c) ASC_SIM_TD_ARR2_(type, n, field, c)
#define TILING_DATA_FIELD_DEF_ARR(type, n, field) ASC_SIM_TD_ARR_(type, n, field, __COUNTER__)

#define ASC_SIM_TD_STRUCT2_(type, field, c)                                                                           \
    type field;                                                                                                       \
    void set_##field(const type& v) { field = v; }                                                                    \
    const type& get_##field() const { return field; }                                                                 \
    template <class V> void asc_visit_(V& v, asc_sim::TIdx<c>) {                                                      \
        v.nested(#field, field);                                                                                      \
        asc_visit_(v, asc_sim::TIdx<c + 1>{});                                                                        \
    }
#define ASC_SIM_TD_STRUCT_(type, field, c) ASC_SIM_TD_STRUCT2_(type, field, c)
#define TILING_DATA_FIELD_DEF_STRUCT(type, field) ASC_SIM_TD_STRUCT_(type, field, __COUNTER__)

#define END_TILING_DATA_DEF }
#define REGISTER_TILING_DATA_CLASS(op, cls) using asc_sim_registered_tiling_##op = cls;
#define REGISTER_TILING_DEFAULT(cls)
#define REGISTER_TILING_FOR_TILINGKEY(k, cls)

namespace asc_sim {
template <class TD> inline void load_tiling(TD* dst, const void* tiling, const Loc& loc) {
    static_assert(!std::is_same<TD, NoDefaultTiling>::value,
                  "GET_TILING_DATA needs a tiling struct: pass tiling_header and tiling_struct to build_kernel");
    enter("GET_TILING_DATA", loc);
    gm_check("GET_TILING_DATA", loc, tiling, sizeof(TD), "reads");
    if (S().cfg.cost_only && tiling == nullptr) return;
    std::memcpy(static_cast<void*>(dst), tiling, sizeof(TD));
}
}  // namespace asc_sim

// ASC_SIM_DEFAULT_TILING: the kernel's tiling struct, or asc_sim::NoDefaultTiling, defined by the
// runner after this header (which is precompiled) and read where GET_TILING_DATA expands.
#define GET_TILING_DATA(var, tiling)                                                                                  \
    ASC_SIM_DEFAULT_TILING var;                                                                                       \
    asc_sim::load_tiling(&var, tiling, asc_sim::Loc::here())
#define GET_TILING_DATA_WITH_STRUCT(type, var, tiling)                                                                \
    type var;                                                                                                         \
    asc_sim::load_tiling(&var, tiling, asc_sim::Loc::here())
#define GET_TILING_DATA_PTR_WITH_STRUCT(type, ptr, tiling)                                                            \
    type asc_sim_tiling_storage_##ptr;                                                                                \
    asc_sim::load_tiling(&asc_sim_tiling_storage_##ptr, tiling, asc_sim::Loc::here());                                \
    const type* ptr = &asc_sim_tiling_storage_##ptr
#define GET_TILING_DATA_MEMBER(type, member, var, tiling)                                                             \
    type asc_sim_tiling_full_##var;                                                                                   \
    asc_sim::load_tiling(&asc_sim_tiling_full_##var, tiling, asc_sim::Loc::here());                                   \
    auto var = asc_sim_tiling_full_##var.member

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
