// ascendcraft AscendC CPU simulator: the hooks of harness_shared.h, included at the end of the
// translation unit the runner generates (after the kernel and its launcher
// `asc_sim_launch(uint8_t** gm, const asc_sim::ScalarArg* sc)`). The harness's main() is compiled
// once (harness_main.cpp) and linked in, so each kernel compiles only itself.
#pragma once
#include <cstring>

#include "harness_shared.h"

#ifndef ASC_SIM_NUM_ARGS
#define ASC_SIM_NUM_ARGS 0
#endif

namespace asc_sim {

int hook_num_args() { return ASC_SIM_NUM_ARGS; }

bool hook_thread_per_block() {
#ifdef ASC_SIM_THREADS
    return true;
#else
    return false;
#endif
}

int hook_mix_ratio() {
#ifdef ASC_SIM_MIX_RATIO
    return ASC_SIM_MIX_RATIO;
#else
    return 0;
#endif
}

int hook_matmul_aivs() {
#ifdef ASC_SIM_MATMUL_AIVS
    return ASC_SIM_MATMUL_AIVS;
#else
    return 0;
#endif
}

bool hook_cross_clocks() {
#ifdef ASC_SIM_CROSS_CLOCKS
    return true;
#else
    return false;
#endif
}

bool hook_cross_scheduler() {
#ifdef ASC_SIM_NO_CROSS_SCHEDULER
    return false;
#else
    return true;
#endif
}

void hook_launch(uint8_t** gm, const ScalarArg* scalars) { asc_sim_launch(gm, scalars); }

bool hook_default_tiling(TilingFiller& filler, std::vector<uint8_t>& bytes, std::string& type_name) {
#ifdef ASC_SIM_HAS_TILING
    ASC_SIM_DEFAULT_TILING td{};
    filler.base = reinterpret_cast<const uint8_t*>(&td);
    td.asc_visit_all(filler);
    type_name = td.asc_type_name();
    bytes.resize(sizeof(td));
    std::memcpy(bytes.data(), &td, sizeof(td));
    return true;
#else
    (void)filler; (void)bytes; (void)type_name;
    return false;
#endif
}

}  // namespace asc_sim
