// ascendcraft AscendC CPU simulator: the bodies of shadow.h's functions: which local bytes hold a
// value, and where garbage (what nothing wrote, and what is computed from it) may go.
#include "kernel_operator.h"

namespace asc_sim {

void mark_holds(int sp, uint32_t addr, uint64_t bytes, bool value) {
    if (S().cfg.cost_only || bytes == 0) return;
    Space& s = S().spaces[sp];
    if (addr + bytes > s.shadow.size()) bytes = s.shadow.size() > addr ? s.shadow.size() - addr : 0;
    std::memset(s.shadow.data() + addr, value ? 1 : 0, bytes);
}

// What an op that read garbage writes is garbage, all of it (ops that map lanes one to one mark each
// lane by its sources: wrote_lanes).
void mark_written(int sp, uint32_t addr, uint64_t bytes) { mark_holds(sp, addr, bytes, !S().op_read_garbage); }

void mark_unwritten(int sp, uint32_t addr, uint64_t bytes) { mark_holds(sp, addr, bytes, false); }

void copy_shadow(int dst_sp, uint32_t dst, int src_sp, uint32_t src, uint64_t bytes) {
    if (S().cfg.cost_only || bytes == 0) return;
    Space &d = S().spaces[dst_sp], &s = S().spaces[src_sp];
    if (dst + bytes > d.shadow.size() || src + bytes > s.shadow.size()) return;
    std::memmove(d.shadow.data() + dst, s.shadow.data() + src, bytes);
}

int64_t first_unwritten(int sp, uint32_t addr, uint64_t bytes) {
    if (S().cfg.cost_only || bytes == 0) return -1;
    Space& s = S().spaces[sp];
    const void* z = std::memchr(s.shadow.data() + addr, 0, bytes);
    return z ? static_cast<const uint8_t*>(z) - (s.shadow.data() + addr) : -1;
}

static std::string unwritten_text(const char* api, const char* operand, int sp, uint32_t addr, int64_t off,
                                  uint64_t bytes, uint32_t elem_size) {
    return fmt("%s reads %s element %llu (%s address 0x%llx), which holds no value: nothing wrote it since the "
               "buffer was allocated, or it was computed from such memory (operand covers %llu elements)",
               api, operand, static_cast<unsigned long long>(off / elem_size), space_name(sp),
               static_cast<unsigned long long>(addr + off), static_cast<unsigned long long>(bytes / elem_size));
}

void require_written(const char* api, const Loc& loc, const char* operand, int sp, uint32_t addr, uint64_t bytes,
                     uint32_t elem_size) {
    const int64_t off = first_unwritten(sp, addr, bytes);
    if (off >= 0) {
        std::string msg = unwritten_text(api, operand, sp, addr, off, bytes, elem_size);
        const State& st = S();
        if (!st.garbage_origin.empty())
            msg += fmt("; the first read of such memory on this core was %s at line %d: %s", st.garbage_api.c_str(),
                       st.garbage_loc.line, st.garbage_origin.c_str());
        fail("uninit-read", api, loc, msg);
    }
}

void check_written(const char* api, const Loc& loc, const char* operand, int sp, uint32_t addr,
                   uint64_t bytes, uint32_t elem_size) {
    const int64_t off = first_unwritten(sp, addr, bytes);
    if (off < 0) return;
    State& s = S();
    s.op_read_garbage = true;
    const std::string what = unwritten_text(api, operand, sp, addr, off, bytes, elem_size);
    if (s.garbage_origin.empty()) {
        s.garbage_origin = what;
        s.garbage_api = api;
        s.garbage_loc = loc;
    }
    warn("uninit-read", api, loc,
         what + ": the lanes computed from it hold garbage, which is an error where it reaches an output, a scalar "
                "read or the cube");
}

void check_copied_out(const char* api, const Loc& loc, int sp, uint32_t addr, uint64_t bytes, uint32_t elem_size,
                      const void* gm_dst) {
    if (S().cfg.cost_only || bytes == 0) return;
    State& st = S();
    const uintptr_t g = reinterpret_cast<uintptr_t>(gm_dst);
    const GmRegion* r = gm_find(g, bytes);
    const uint8_t* shadow = st.spaces[sp].shadow.data() + addr;
    if (r && r->output) {
        // an output's bytes hold garbage from this copy on, until a write of values replaces them
        // (record_gm_access, which this copy's own write went through first)
        const uint64_t base = g - r->base;
        for (uint64_t i = 0; i < bytes;) {
            const bool bad = shadow[i] == 0;
            uint64_t j = i;
            while (j < bytes && (shadow[j] == 0) == bad) ++j;
            const uint64_t lo = std::min(base + i, r->bytes), hi = std::min(base + j, r->bytes);
            if (bad && lo < hi) {
                State::GmGarbage& gg = st.gm_garbage[static_cast<size_t>(r - st.gm.data())];
                if (gg.bytes.empty()) { gg.api = api; gg.loc = loc; }
                interval_add(gg.bytes, lo, hi);
            }
            i = j;
        }
        return;
    }
    const int64_t off = first_unwritten(sp, addr, bytes);
    if (off >= 0)
        warn("uninit-copy-out", api, loc,
             fmt("%s copies src element %llu (%s address 0x%llx) to GM, which holds no value (nothing wrote it, or it "
                 "was computed from such memory): those GM elements get garbage unless something writes them later",
                 api, static_cast<unsigned long long>(off / elem_size), space_name(sp),
                 static_cast<unsigned long long>(addr + off)));
}

void check_gm_garbage() {
    State& s = S();
    for (auto& [region, gg] : s.gm_garbage) {
        if (gg.bytes.empty()) continue;
        const GmRegion& r = s.gm[region];
        const uint64_t lo = gg.bytes.begin()->first, hi = gg.bytes.begin()->second;
        uint64_t total = 0;
        for (auto& [a, b] : gg.bytes) total += b - a;
        const std::string reached = fmt(
            "output '%s' ends with %llu elements holding garbage (the first at elements [%llu, %llu)), copied out by "
            "%s at line %d", r.name.c_str(), static_cast<unsigned long long>((total + r.elem - 1) / r.elem),
            static_cast<unsigned long long>(lo / r.elem), static_cast<unsigned long long>((hi + r.elem - 1) / r.elem),
            gg.api.c_str(), gg.loc.line);
        // reported where the garbage came from: the first read of memory that holds no value
        const std::string origin = s.garbage_origin, api = s.garbage_origin.empty() ? gg.api : s.garbage_api;
        const Loc loc = s.garbage_origin.empty() ? gg.loc : s.garbage_loc;
        s.gm_garbage.clear();
        s.garbage_origin.clear();
        fail("uninit-read", api.c_str(), loc,
             origin.empty() ? reached + " from local memory nothing wrote" : origin + "; the garbage reached an output: " + reached);
    }
    s.gm_garbage.clear();
    s.garbage_origin.clear();
}

}  // namespace asc_sim
