// ascendcraft AscendC CPU simulator: the checks at the end of a run over the GM accesses every core
// recorded (core.h, AccessLog). Outputs: every byte written, no two cores writing the same bytes in
// one parallel phase. Scratch (the user workspace, when the caller names its tensors): no two cores
// writing the same bytes in one phase, no core reading bytes another writes in the same phase, and
// no core reading bytes before any core wrote them (the NPU does not clear the workspace).
// Included by harness_main.cpp; docs/simulator.md lists the rules.
#pragma once
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "kernel_operator.h"

namespace asc_sim {

struct BlockWrite {
    const WriteRec* rec;
    int64_t block;
};

// What every block recorded: its writes (outputs and scratch), its scratch reads, and the parts of
// those reads it had not written itself.
struct RunAccesses {
    std::vector<std::vector<WriteRec>> writes, reads, unowned;
    explicit RunAccesses(size_t blocks) : writes(blocks), reads(blocks), unowned(blocks) {}
};

// A scratch tensor's place in the user workspace (from the job's `scratch` lines): for the messages.
struct ScratchName {
    uint64_t offset = 0, bytes = 0;
    uint32_t elem = 1;
    std::string name;
};

inline void coverage_diag(FILE* out, const char* rule, const WriteRec* at, int64_t block, const std::string& msg) {
    std::string m = msg;
    for (char& c : m)
        if (c == '\t' || c == '\n') c = ' ';
    std::fprintf(out, "D\terror\t%s\t%s\t%s\t%d\t%lld\t%s\n", rule, at ? at->api : "",
                 at ? loc_file(Loc{at->file, at->line}).c_str() : "", at ? at->line : 0,
                 static_cast<long long>(at ? block : -1), m.c_str());
}
inline std::string write_where(const WriteRec& r, int64_t block) {
    return fmt("%s at line %d in block %lld%s", r.api, r.line, static_cast<long long>(block),
               (r.flags & WR_ATOMIC) ? " (atomic add)" : "");
}

// "output 'y' element 12", "scratch 'att' element 12": the element at byte `off` of region `g`.
inline std::string element_of(const GmRegion& g, const std::vector<ScratchName>& names, uint64_t off) {
    if (!g.scratch) {
        const unsigned long long el = g.elem ? g.elem : 1;
        return fmt("output '%s' element %llu", g.name.c_str(), static_cast<unsigned long long>(off) / el);
    }
    const uint64_t user = off - std::min(off, g.track_from);
    for (const ScratchName& n : names)
        if (user >= n.offset && user < n.offset + n.bytes)
            return fmt("scratch '%s' element %llu", n.name.c_str(),
                       static_cast<unsigned long long>((user - n.offset) / (n.elem ? n.elem : 1)));
    return fmt("user workspace byte %llu (in no scratch tensor)", static_cast<unsigned long long>(user));
}

// The two earlier records reaching furthest that come from different blocks: a record overlaps an
// earlier one of another block iff that block's furthest end passes its start.
struct Top2 {
    const BlockWrite* a = nullptr;  // furthest end
    const BlockWrite* b = nullptr;  // furthest end among the other blocks
    void add(const BlockWrite* w) {
        if (a == nullptr || w->rec->hi > a->rec->hi) {
            if (a != nullptr && a->block != w->block) b = a;
            a = w;
        } else if (w->block != a->block && (b == nullptr || w->rec->hi > b->rec->hi)) {
            b = w;
        }
    }
    const BlockWrite* other(int64_t block) const { return a && a->block != block ? a : b; }
};

inline std::vector<BlockWrite> records_of(const std::vector<std::vector<WriteRec>>& per_block, size_t region) {
    std::vector<BlockWrite> all;
    for (size_t b = 0; b < per_block.size(); ++b)
        for (const WriteRec& r : per_block[b])
            if (r.region == region) all.push_back({&r, static_cast<int64_t>(b)});
    std::sort(all.begin(), all.end(), [](const BlockWrite& x, const BlockWrite& y) {
        if (x.rec->phase != y.rec->phase) return x.rec->phase < y.rec->phase;
        if (x.rec->lo != y.rec->lo) return x.rec->lo < y.rec->lo;
        return x.block < y.block;
    });
    return all;
}

// (a) bytes no block wrote, for an output. Returns 1 if there are some.
inline int check_coverage(FILE* out, const GmRegion& g, std::vector<BlockWrite> all) {
    const unsigned long long el = g.elem ? g.elem : 1;
    std::sort(all.begin(), all.end(), [](const BlockWrite& x, const BlockWrite& y) { return x.rec->lo < y.rec->lo; });
    uint64_t cur = 0, unwritten = 0, gap_lo = 0, gap_hi = 0;
    bool gap = false;
    const BlockWrite* before = nullptr;   // the write reaching furthest so far
    const BlockWrite* gap_before = nullptr;
    for (const BlockWrite& w : all) {
        uint64_t lo = std::min<uint64_t>(w.rec->lo, g.bytes), hi = std::min<uint64_t>(w.rec->hi, g.bytes);
        if (lo > cur) {
            if (!gap) { gap = true; gap_lo = cur; gap_hi = lo; gap_before = before; }
            unwritten += lo - cur;
        }
        if (hi > cur) { cur = hi; before = &w; }
    }
    if (cur < g.bytes) {
        if (!gap) { gap = true; gap_lo = cur; gap_hi = g.bytes; gap_before = before; }
        unwritten += g.bytes - cur;
    }
    if (!gap) return 0;
    std::string prev = gap_before ? fmt("; the last write before it: %s, ending at element %llu",
                                        write_where(*gap_before->rec, gap_before->block).c_str(),
                                        static_cast<unsigned long long>((gap_lo - 1) / el))
                                  : "; no block writes any element before it";
    coverage_diag(out, "output-unwritten", gap_before ? gap_before->rec : nullptr, gap_before ? gap_before->block : -1,
                  fmt("output '%s' (%llu elements of %llu bytes): element %llu is never written by any block "
                      "(the first unwritten range is elements [%llu, %llu)); %llu bytes (%llu elements) of the "
                      "output are never written in total%s",
                      g.name.c_str(), static_cast<unsigned long long>(g.bytes) / el, el,
                      static_cast<unsigned long long>(gap_lo) / el, static_cast<unsigned long long>(gap_lo) / el,
                      (static_cast<unsigned long long>(gap_hi) + el - 1) / el, static_cast<unsigned long long>(unwritten),
                      static_cast<unsigned long long>(unwritten) / el, prev.c_str()));
    return 1;
}

// (b) bytes two blocks wrote in one parallel phase (between SyncAll calls) outside atomic-add mode;
// `all` is sorted by phase, then start. Returns 1 at the first such element.
inline int check_write_races(FILE* out, const GmRegion& g, const std::vector<ScratchName>& names,
                             const std::vector<BlockWrite>& all) {
    const char* kind = g.scratch ? "scratch" : "output";
    Top2 any, plain;
    uint32_t phase = 0;
    for (size_t i = 0; i < all.size(); ++i) {
        const BlockWrite& w = all[i];
        if (i == 0 || w.rec->phase != phase) {
            any = Top2{};
            plain = Top2{};
            phase = w.rec->phase;
        }
        const BlockWrite* o = (w.rec->flags & WR_ATOMIC) ? plain.other(w.block) : any.other(w.block);
        if (o != nullptr && o->rec->hi > w.rec->lo) {
            uint64_t lo = w.rec->lo, hi = std::min(w.rec->hi, o->rec->hi);
            const BlockWrite& first = o->block < w.block ? *o : w;
            const BlockWrite& second = o->block < w.block ? w : *o;
            coverage_diag(out, g.scratch ? "scratch-race" : "output-race", w.rec, w.block,
                          fmt("blocks %lld and %lld both write %s (bytes [%llu, %llu) of the %s overlap) in the same "
                              "parallel phase (phase %u: %u SyncAll calls before it): %s and %s. The cores run in "
                              "parallel, so on the NPU the result depends on which core writes last; only SetAtomicAdd "
                              "writes may overlap (or separate the writes with SyncAll)",
                              static_cast<long long>(first.block), static_cast<long long>(second.block),
                              element_of(g, names, lo).c_str(), static_cast<unsigned long long>(lo),
                              static_cast<unsigned long long>(hi), kind, phase, phase,
                              write_where(*first.rec, first.block).c_str(), write_where(*second.rec, second.block).c_str()));
            return 1;  // one report per tensor: the first overlapping element
        }
        any.add(&w);
        if (!(w.rec->flags & WR_ATOMIC)) plain.add(&w);
    }
    return 0;
}

// ---------------------------------------------------------------- cross-core runs
// With cross-core flags (cross.h) an access record's phase is its core's happens-before snapshot:
// two accesses of different cores conflict (their bytes meet, one writes, not both atomic adds)
// unless a chain of flags and barriers orders one before the other.
struct CoreAccess {
    BlockWrite at;
    bool write;
};
inline std::string core_where(const WriteRec& r, int64_t thread) {
    return fmt("%s at line %d on %s%s", r.api, r.line, core_label(static_cast<int>(thread)).c_str(),
               (r.flags & WR_ATOMIC) ? " (atomic add)" : "");
}
inline bool hb_ordered(const BlockWrite& a, const BlockWrite& b) {
    const int ta = static_cast<int>(a.block), tb = static_cast<int>(b.block);
    return happens_before(ta, a.rec->phase, tb, b.rec->phase) || happens_before(tb, b.rec->phase, ta, a.rec->phase);
}
// The first two conflicting accesses no flag orders, or {nullptr, nullptr}.
inline std::pair<const CoreAccess*, const CoreAccess*> hb_first_race(std::vector<CoreAccess>& all) {
    std::sort(all.begin(), all.end(), [](const CoreAccess& x, const CoreAccess& y) { return x.at.rec->lo < y.at.rec->lo; });
    std::vector<const CoreAccess*> open;
    for (const CoreAccess& x : all) {
        size_t keep = 0;
        for (const CoreAccess* y : open)
            if (y->at.rec->hi > x.at.rec->lo) open[keep++] = y;
        open.resize(keep);
        for (const CoreAccess* y : open) {
            if (y->at.block == x.at.block || !(x.write || y->write)) continue;
            if (x.write && y->write && (x.at.rec->flags & WR_ATOMIC) && (y->at.rec->flags & WR_ATOMIC)) continue;
            if (!hb_ordered(x.at, y->at)) return {y, &x};
        }
        open.push_back(&x);
    }
    return {nullptr, nullptr};
}
inline int hb_report_race(FILE* out, const GmRegion& g, const std::vector<ScratchName>& names,
                          std::pair<const CoreAccess*, const CoreAccess*> race) {
    const CoreAccess& a = *race.first;
    const CoreAccess& b = *race.second;
    const uint64_t lo = std::max(a.at.rec->lo, b.at.rec->lo);
    const CoreAccess& w = a.write ? a : b;
    const CoreAccess& o = a.write ? b : a;
    const char* rule = g.scratch ? "scratch-race" : "output-race";
    coverage_diag(out, rule, o.at.rec, o.at.block,
                  fmt("%s %s %s (%s) while %s writes it (%s), and no cross-core flag or barrier orders the two: the "
                      "cores run in parallel, so the result depends on which gets there first. Have the writer "
                      "CrossCoreSetFlag after its write (on the pipe that writes: PIPE_FIX for Fixpipe, PIPE_MTE3 "
                      "for a DataCopy out) and the other core CrossCoreWaitFlag before it touches the bytes; a "
                      "slot reused for the next tile needs the reader's flag back before the writer overwrites it",
                      core_label(static_cast<int>(o.at.block)).c_str(), o.write ? "writes" : "reads",
                      element_of(g, names, lo).c_str(), core_where(*o.at.rec, o.at.block).c_str(),
                      core_label(static_cast<int>(w.at.block)).c_str(), core_where(*w.at.rec, w.at.block).c_str()));
    return 1;
}
// `writes`: the region's write records (records_of).
inline int hb_check_region(FILE* out, const GmRegion& g, const std::vector<ScratchName>& names, size_t ri,
                           const RunAccesses& acc, const std::vector<BlockWrite>& writes) {
    std::vector<CoreAccess> all;
    for (const BlockWrite& w : writes) all.push_back({w, true});
    if (g.scratch)
        for (const BlockWrite& r : records_of(acc.reads, ri)) all.push_back({r, false});
    auto race = hb_first_race(all);
    if (race.first) return hb_report_race(out, g, names, race);
    if (!g.scratch) return 0;
    // a read of bytes no other core wrote before it (in the flags' order), nor the reader itself
    for (const BlockWrite& r : records_of(acc.unowned, ri)) {
        std::map<uint64_t, uint64_t> before;
        for (const BlockWrite& w : writes)
            if (w.block != r.block && w.rec->lo < r.rec->hi && w.rec->hi > r.rec->lo &&
                happens_before(static_cast<int>(w.block), w.rec->phase, static_cast<int>(r.block), r.rec->phase))
                interval_add(before, w.rec->lo, w.rec->hi);
        bool found = false;
        interval_gaps(before, r.rec->lo, r.rec->hi, [&](uint64_t lo, uint64_t) {
            if (found) return;
            found = true;
            coverage_diag(out, "scratch-unwritten", r.rec, r.block,
                          fmt("%s reads %s (%s) before any core wrote it in the order the cross-core flags give: GM "
                              "scratch holds whatever was there before the kernel ran, so a core must wait for the "
                              "flag of the core that writes the bytes (or write them itself) before it reads them",
                              core_label(static_cast<int>(r.block)).c_str(), element_of(g, names, lo).c_str(),
                              core_where(*r.rec, r.block).c_str()));
        });
        if (found) return 1;
    }
    return 0;
}

// Checks every output tensor: bytes no block wrote, bytes two blocks wrote in one phase. Returns
// the errors found.
inline int check_outputs(FILE* out, const std::vector<GmRegion>& regions, const RunAccesses& acc) {
    int errors = 0;
    for (size_t ri = 0; ri < regions.size(); ++ri) {
        const GmRegion& g = regions[ri];
        if (!g.output || g.bytes == 0) continue;
        std::vector<BlockWrite> all = records_of(acc.writes, ri);
        errors += check_coverage(out, g, all);
        errors += g_cross.clocks ? hb_check_region(out, g, {}, ri, acc, all) : check_write_races(out, g, {}, all);
    }
    return errors;
}

// Per phase, the writes sorted by start with the running Top2 of their ends: which block other than
// a reader's writes bytes at or after a position in that phase.
struct PhaseWrites {
    std::vector<BlockWrite> writes;
    std::vector<Top2> reach;   // reach[i]: over writes[0..i]
    // A write by a block other than `block` in this phase overlapping [lo, hi), or nullptr.
    const BlockWrite* other_overlapping(int64_t block, uint64_t lo, uint64_t hi) const {
        auto end = std::lower_bound(writes.begin(), writes.end(), hi,
                                    [](const BlockWrite& w, uint64_t v) { return w.rec->lo < v; });
        if (end == writes.begin()) return nullptr;
        const BlockWrite* o = reach[static_cast<size_t>(end - writes.begin()) - 1].other(block);
        return o != nullptr && o->rec->hi > lo ? o : nullptr;
    }
};

// Checks the scratch tensors: writes racing (as for outputs), a read of bytes another block writes in
// the same phase, a read of bytes no block wrote before it. Returns the errors found.
inline int check_scratch(FILE* out, const std::vector<GmRegion>& regions, const std::vector<ScratchName>& names,
                         const RunAccesses& acc) {
    int errors = 0;
    for (size_t ri = 0; ri < regions.size(); ++ri) {
        const GmRegion& g = regions[ri];
        if (!g.scratch) continue;
        std::vector<BlockWrite> writes = records_of(acc.writes, ri);
        if (g_cross.clocks) {
            errors += hb_check_region(out, g, names, ri, acc, writes);
            continue;
        }
        int races = check_write_races(out, g, names, writes);
        std::map<uint32_t, PhaseWrites> phases;
        for (const BlockWrite& w : writes) phases[w.rec->phase].writes.push_back(w);
        for (auto& kv : phases) {
            Top2 t;
            for (const BlockWrite& w : kv.second.writes) {
                t.add(&w);
                kv.second.reach.push_back(t);
            }
        }
        const PhaseWrites none;
        auto in_phase = [&](uint32_t phase) -> const PhaseWrites& {
            auto it = phases.find(phase);
            return it == phases.end() ? none : it->second;
        };
        // a read while another block writes the same bytes in the same phase
        for (const BlockWrite& r : records_of(acc.reads, ri)) {
            if (races) break;
            const BlockWrite* w = in_phase(r.rec->phase).other_overlapping(r.block, r.rec->lo, r.rec->hi);
            if (w == nullptr) continue;
            uint64_t lo = std::max(r.rec->lo, w->rec->lo);
            coverage_diag(out, "scratch-race", r.rec, r.block,
                          fmt("block %lld reads %s (%s) while block %lld writes it (%s) in the same parallel phase "
                              "(phase %u: %u SyncAll calls before it). The cores run in parallel, so what block %lld "
                              "reads depends on which core gets there first: a value one core writes for another "
                              "must be written in an earlier phase (a parallel loop before the reading one)",
                              static_cast<long long>(r.block), element_of(g, names, lo).c_str(),
                              write_where(*r.rec, r.block).c_str(), static_cast<long long>(w->block),
                              write_where(*w->rec, w->block).c_str(), r.rec->phase, r.rec->phase,
                              static_cast<long long>(r.block)));
            ++races;
        }
        errors += races;
        // a read of bytes no block wrote in an earlier phase (nor the reader itself before it)
        std::vector<BlockWrite> unowned = records_of(acc.unowned, ri);
        std::map<uint64_t, uint64_t> before;   // bytes written in the phases before the current one
        auto next_write = writes.begin();
        for (const BlockWrite& r : unowned) {
            for (; next_write != writes.end() && next_write->rec->phase < r.rec->phase; ++next_write)
                interval_add(before, next_write->rec->lo, next_write->rec->hi);
            bool found = false;
            interval_gaps(before, r.rec->lo, r.rec->hi, [&](uint64_t lo, uint64_t hi) {
                if (found || in_phase(r.rec->phase).other_overlapping(r.block, lo, hi)) return;   // a race
                found = true;
                coverage_diag(out, "scratch-unwritten", r.rec, r.block,
                              fmt("block %lld reads %s (%s, phase %u) before any block wrote it: GM scratch holds "
                                  "whatever was there before the kernel ran (the NPU does not clear the workspace), "
                                  "so a scratch element must be written, by this core earlier or by any core in an "
                                  "earlier phase, before it is read",
                                  static_cast<long long>(r.block), element_of(g, names, lo).c_str(),
                                  write_where(*r.rec, r.block).c_str(), r.rec->phase));
            });
            if (found) {
                ++errors;
                break;   // one report per workspace: the first unwritten read
            }
        }
    }
    return errors;
}

}  // namespace asc_sim
