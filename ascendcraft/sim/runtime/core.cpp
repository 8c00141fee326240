// ascendcraft AscendC CPU simulator: the bodies of core.h's functions, compiled once per
// library version and linked into every kernel (build.py), so a kernel's build compiles only itself.
#include "kernel_operator.h"

namespace asc_sim {

thread_local State g_state;
std::vector<std::unique_ptr<BlockL2>> g_block_l2;
State::State() = default;
State::~State() = default;

void L2Recent::drop(L2Entry& e) {
    if (!e.live) return;
    e.live = false;
    L2Index& ix = index_of(e);
    ix.by_start.erase(e.pos);
    L2Index::dec(ix.spans, e.span);
    if (e.count > 1) {
        ix.by_res.erase(e.res);
        L2Index::dec(ix.blks, e.blk);
        if (ix.by_start.empty()) strided.erase(e.stride);
    }
}

void L2Recent::add(uintptr_t start, uint64_t blk, uint64_t stride, uint64_t count, uint64_t clock) {
    fifo.push_back(L2Entry{start, blk, stride, count, (count - 1) * stride + blk, clock, true, {}, {}});
    L2Entry& e = fifo.back();
    L2Index& ix = index_of(e);
    e.pos = ix.by_start.emplace(start, &e);
    ix.spans[e.span]++;
    if (count > 1) {
        e.res = ix.by_res.emplace(start % stride, &e);
        ix.blks[blk]++;
    }
}

void AccessLog::add(size_t region, uint64_t lo, uint64_t hi, const char* api, const Loc& loc, uint32_t phase,
                    uint8_t flags) {
    uint32_t& slot = open[slot_of(lo)];
    if (slot < recs.size()) {
        WriteRec& r = recs[slot];
        if (r.hi == lo && r.region == region && r.line == loc.line && r.api == api && r.phase == phase &&
            r.flags == flags) {
            r.hi = hi;
            uint32_t idx = slot;
            slot = 0xffffffffu;
            open[slot_of(hi)] = idx;
            return;
        }
    }
    recs.push_back(WriteRec{lo, hi, api, loc.file, loc.line, phase, static_cast<uint16_t>(region), flags});
    open[slot_of(hi)] = static_cast<uint32_t>(recs.size() - 1);
    if (recs.size() >= compact_at) {
        compact_writes(recs);
        reopen();
        compact_at = std::max<size_t>(65536, 2 * recs.size());
    }
}

void compact_writes(std::vector<WriteRec>& w) {
    if (w.size() < 2) return;
    auto key = [](const WriteRec& r) { return std::make_tuple(r.region, r.phase, r.flags, r.line, r.api); };
    std::sort(w.begin(), w.end(), [&](const WriteRec& x, const WriteRec& y) {
        auto kx = key(x), ky = key(y);
        return kx != ky ? kx < ky : x.lo < y.lo;
    });
    size_t o = 0;
    for (size_t i = 1; i < w.size(); ++i) {
        if (key(w[i]) == key(w[o]) && w[i].lo <= w[o].hi) w[o].hi = std::max(w[o].hi, w[i].hi);
        else w[++o] = w[i];
    }
    w.resize(o + 1);
}

void emit_diag(const char* sev, const char* rule, const char* api, const Loc& loc, const std::string& msg) {
    State& s = S();
    std::string key = std::string(rule) + "|" + api + "|" + std::to_string(loc.line) + "|" + loc_file(loc);
    int& n = s.seen[key];
    ++n;
    if (n > 1 && sev[0] == 'w') return;  // warnings are reported once per (rule, api, line)
    std::string m = msg;
    for (char& c : m)
        if (c == '\t' || c == '\n') c = ' ';
    if (s.report) {
        std::fprintf(s.report, "D\t%s\t%s\t%s\t%s\t%d\t%lld\t%s\n", sev, rule, api, loc_file(loc).c_str(), loc.line,
                     static_cast<long long>(s.block_idx), m.c_str());
        std::fflush(s.report);
    } else {
        std::fprintf(stderr, "[%s] %s %s line %d: %s\n", sev, rule, api, loc.line, m.c_str());
    }
}

std::string fmt(const char* f, ...) {
    char buf[2048];
    va_list ap;
    va_start(ap, f);
    std::vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

void fail(const char* rule, const char* api, const Loc& loc, const std::string& msg) {
    S().n_errors++;
    emit_diag("error", rule, api, loc, msg);
    S().aborting = true;
    throw Abort{};
}

void strict_or_warn(const char* rule, const char* api, const Loc& loc, const std::string& msg) {
    if (S().cfg.lenient)
        warn(rule, api, loc, msg + " (lenient mode: continuing with the hardware behaviour)");
    else
        fail(rule, api, loc, msg);
}

void check_core_space(const char* api, const Loc& loc, int sp) {
    State& s = S();
    if (s.cfg.mix_ratio == 0 || (s.core_kind == 1) == (sp != SP_UB)) return;
    if (s.core_kind == 1)
        fail("core-kind", api, loc,
             "the AIC has no Unified Buffer: in a mixed launch vector work runs on the AIVs (put it under "
             "`if ASCEND_IS_AIV`), and the AIC hands its product tiles to them through GM with cross-core flags");
    fail("core-kind", api, loc,
         fmt("an AIV has no %s: in a mixed launch cube work runs on the AIC (put it under `if ASCEND_IS_AIC`)",
             space_name(sp)));
}

}  // namespace asc_sim
