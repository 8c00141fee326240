// ascendcraft AscendC CPU simulator: what the harness (harness_main.cpp, compiled once per cache
// and linked into every kernel executable) and a kernel's translation unit (harness.h, included at
// its end) share. The harness's main() calls the hooks the kernel's translation unit defines.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel_operator.h"   // asc_sim::is_floating_v, and the types both sides share

namespace asc_sim {

struct TilingFiller {
    std::map<std::string, std::string>* vals = nullptr;
    std::set<std::string> used;
    std::string prefix;
    const uint8_t* base = nullptr;
    FILE* layout = nullptr;
    int fields = 0;
    template <class F> void scalar(const char* n, F& f) {
        std::string key = prefix + n;
        ++fields;
        if (layout)
            std::fprintf(layout, "T\t%s\t%s\t%ld\t%zu\n", key.c_str(), is_floating_v<F> ? "float" : "int",
                         static_cast<long>(reinterpret_cast<const uint8_t*>(&f) - base), sizeof(F));
        auto it = vals->find(key);
        if (it == vals->end()) return;
        used.insert(key);
        if (is_floating_v<F>) f = static_cast<F>(std::strtod(it->second.c_str(), nullptr));
        else f = static_cast<F>(std::strtoll(it->second.c_str(), nullptr, 0));
    }
    template <class F> void array(const char* n, F* f, int len) {
        std::string key = prefix + n;
        ++fields;
        if (layout)
            std::fprintf(layout, "T\t%s\t%s[%d]\t%ld\t%zu\n", key.c_str(), is_floating_v<F> ? "float" : "int", len,
                         static_cast<long>(reinterpret_cast<const uint8_t*>(f) - base), sizeof(F));
        auto it = vals->find(key);
        if (it == vals->end()) return;
        used.insert(key);
        std::stringstream ss(it->second);
        std::string item;
        int i = 0;
        while (std::getline(ss, item, ',') && i < len) {
            if (is_floating_v<F>) f[i++] = static_cast<F>(std::strtod(item.c_str(), nullptr));
            else f[i++] = static_cast<F>(std::strtoll(item.c_str(), nullptr, 0));
        }
    }
    template <class St> void nested(const char* n, St& st) {
        std::string saved = prefix;
        prefix += std::string(n) + ".";
        st.asc_visit_all(*this);
        prefix = saved;
    }
};

// Defined by the kernel's translation unit (harness.h) from the macros the runner writes there.
int hook_num_args();                                       // ASC_SIM_NUM_ARGS
bool hook_thread_per_block();                              // ASC_SIM_THREADS: SyncAll or cross-core flags
int hook_mix_ratio();                                      // ASC_SIM_MIX_RATIO: AIVs per AIC, 0: one kind
int hook_matmul_aivs();                                    // ASC_SIM_MATMUL_AIVS: AIVs per block, no AIC thread
bool hook_cross_clocks();                                  // ASC_SIM_CROSS_CLOCKS: flags order the accesses
bool hook_cross_scheduler();                               // not ASC_SIM_NO_CROSS_SCHEDULER (cross.h)
void hook_launch(uint8_t** gm, const ScalarArg* scalars);  // the runner's asc_sim_launch
// The kernel's default tiling struct (ASC_SIM_HAS_TILING), its fields filled by ``filler``, copied
// into ``bytes``, its type name in ``type_name``; false when the kernel has no tiling struct.
bool hook_default_tiling(TilingFiller& filler, std::vector<uint8_t>& bytes, std::string& type_name);

}  // namespace asc_sim
