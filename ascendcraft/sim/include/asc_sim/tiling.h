// ascendcraft AscendC CPU simulator: the kernel side of tiling data: GET_TILING_DATA and friends. The
// BEGIN_TILING_DATA_DEF macros and TCubeTiling are in tiling_def.h (shared with the host side).
#pragma once
#include "schedule.h"   // gm_check
#include "tiling_def.h"

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
