// ascendcraft AscendC CPU simulator: the bodies of schedule.h's functions, compiled once per
// library version and linked into every kernel (build.py), so a kernel's build compiles only itself.
#include "kernel_operator.h"

namespace asc_sim {

void trace_record(int pipe, double start, double end, uint8_t kind, const char* api) {
    State& s = S();
    if (s.cfg.trace_limit <= 0) return;
    if (static_cast<int64_t>(s.trace.size()) >= s.cfg.trace_limit) {
        s.trace_dropped++;
        return;
    }
    s.trace.push_back(TraceRec{start, end, api ? api : s.cur_api, s.cur_loc.file, s.cur_loc.line,
                               static_cast<uint8_t>(pipe), kind});
}

double hbm_share_per_cycle(int64_t sharers) {
    const Config& c = S().cfg;
    const double gbps = c.hbm_achievable_gbps > 0 ? c.hbm_achievable_gbps : c.hbm_gbps;
    return gbps * 1e9 / (c.freq_mhz * 1e6) / static_cast<double>(std::max<int64_t>(sharers, 1));
}

double hbm_bytes_per_cycle() { return hbm_share_per_cycle(hbm_sharers(S().cfg, S().core_kind)); }

uint64_t l2_overlap_interval(int64_t lo, int64_t hi, int64_t be, int64_t se, int64_t ne) {
    if (hi <= 0 || lo >= (ne - 1) * se + be || hi <= lo) return 0;
    // rows j with j*se < hi and j*se + be > lo
    int64_t jmax = std::min<int64_t>(ne - 1, (hi - 1) / se);
    int64_t t = lo - be + 1;  // j*se >= t
    int64_t jmin = t <= 0 ? 0 : (t + se - 1) / se;
    if (jmin > jmax) return 0;
    auto clip = [&](int64_t j) {
        int64_t a = std::max<int64_t>(lo, j * se), b = std::min<int64_t>(hi, j * se + be);
        return b > a ? static_cast<uint64_t>(b - a) : 0ull;
    };
    if (jmin == jmax) return clip(jmin);
    return clip(jmin) + clip(jmax) + static_cast<uint64_t>(jmax - jmin - 1) * static_cast<uint64_t>(be);
}

uint64_t l2_overlap(uintptr_t qa, uint64_t qb, uint64_t qs, uint64_t qn, const L2Entry& e) {
    const int64_t base = static_cast<int64_t>(e.start);
    if (qn == 1)
        return l2_overlap_interval(static_cast<int64_t>(qa) - base, static_cast<int64_t>(qa + qb) - base,
                                   static_cast<int64_t>(e.blk), static_cast<int64_t>(e.stride), static_cast<int64_t>(e.count));
    if (e.count == 1)
        return l2_overlap_interval(base - static_cast<int64_t>(qa), base + static_cast<int64_t>(e.blk) - static_cast<int64_t>(qa),
                                   static_cast<int64_t>(qb), static_cast<int64_t>(qs), static_cast<int64_t>(qn));
    if (qs == e.stride) {
        // same row pitch (column tiles of one 2-D block): E's row j lands on Q's row j+k at
        // offset r, and may spill into Q's row j+k+1
        const int64_t s = static_cast<int64_t>(qs), d = base - static_cast<int64_t>(qa);
        int64_t k = d >= 0 ? d / s : -((-d + s - 1) / s);
        int64_t r = d - k * s;  // 0 <= r < s
        const int64_t be = static_cast<int64_t>(e.blk), bq = static_cast<int64_t>(qb);
        const int64_t ne = static_cast<int64_t>(e.count), nq = static_cast<int64_t>(qn);
        int64_t ov1 = std::max<int64_t>(0, std::min(r + be, bq) - r);
        int64_t ov2 = std::max<int64_t>(0, std::min(r + be - s, bq));
        auto pairs = [&](int64_t off) {  // j in [0, ne) with j + off in [0, nq)
            int64_t a = std::max<int64_t>(0, -off), b = std::min<int64_t>(ne, nq - off);
            return b > a ? b - a : 0;
        };
        return static_cast<uint64_t>(pairs(k) * ov1 + (ov2 > 0 ? pairs(k + 1) * ov2 : 0));
    }
    // different pitches: row by row over the set with fewer rows (at most 4095 rows per copy)
    uint64_t sum = 0;
    if (qn <= e.count) {
        for (uint64_t i = 0; i < qn; ++i) {
            int64_t lo = static_cast<int64_t>(qa + i * qs) - base;
            sum += l2_overlap_interval(lo, lo + static_cast<int64_t>(qb), static_cast<int64_t>(e.blk),
                                       static_cast<int64_t>(e.stride), static_cast<int64_t>(e.count));
        }
    } else {
        for (uint64_t j = 0; j < e.count; ++j) {
            int64_t lo = static_cast<int64_t>(e.start + j * e.stride) - static_cast<int64_t>(qa);
            sum += l2_overlap_interval(lo, lo + static_cast<int64_t>(e.blk), static_cast<int64_t>(qb),
                                       static_cast<int64_t>(qs), static_cast<int64_t>(qn));
        }
    }
    return sum;
}

void l2_expire(L2Recent& l2, uint64_t share, uint64_t clock) {
    while (!l2.fifo.empty() && (!l2.fifo.front().live || l2.fifo.front().clock + share < clock)) {
        l2.drop(l2.fifo.front());
        l2.fifo.pop_front();
    }
}

void l2_normalise(uint64_t& blk, uint64_t& stride, uint64_t& count) {
    if (count == 1 || stride <= blk) {  // contiguous (stride < blk cannot occur: gaps are >= 0)
        blk *= count;
        count = 1;
    }
    if (count == 1) stride = blk;
}

void gm_wrote(const void* addr, uint64_t blk, uint64_t stride, uint64_t count) {
    State& s = S();
    if (blk > 0 && count > 0 && s.last_pipe >= 0) {
        // the copy just scheduled: a read of these bytes on this core must be ordered after it
        if (s.gm_pending.size() >= 256) s.gm_pending.erase(s.gm_pending.begin(), s.gm_pending.begin() + 128);
        const uintptr_t lo = reinterpret_cast<uintptr_t>(addr);
        s.gm_pending.push_back({lo, lo + (count - 1) * stride + blk, blk, count > 1 ? stride : blk, s.last_epoch,
                                s.last_pipe, s.cur_api, s.cur_loc.line});
    }
    if (g_block_l2.empty() || blk == 0 || count == 0) return;
    l2_normalise(blk, stride, count);
    BlockL2& b = *g_block_l2[static_cast<size_t>(s.group)];
    std::lock_guard<std::mutex> lock(b.mu);
    b.clock += blk * count;
    l2_expire(b.written, l2_share_bytes(s.cfg) * static_cast<uint64_t>(s.cfg.mix_ratio + 1), b.clock);
    b.written.add(reinterpret_cast<uintptr_t>(addr), blk, stride, count, b.clock);
}

uint64_t gm_read_hbm_bytes(const void* addr, uint64_t blk, uint64_t stride, uint64_t count) {
    State& s = S();
    if (blk == 0 || count == 0) return 0;
    l2_normalise(blk, stride, count);
    const uint64_t bytes = blk * count;
    uintptr_t a = reinterpret_cast<uintptr_t>(addr);
    const uint64_t share = l2_share_bytes(s.cfg);
    if (share == 0) return bytes;
    L2Recent& l2 = s.l2_recent;
    l2_expire(l2, share, s.l2_clock);
    const uintptr_t qend = a + (count - 1) * stride + blk;
    uint64_t overlap = 0;
    L2Entry* stale[8];  // older reads of exactly these bytes (or of fewer, contiguous): refreshed by this one
    int n_stale = 0;
    auto more = [&] { return overlap < bytes; };
    l2_scan(l2, a, blk, stride, count, [&](L2Entry& e) {
        if (e.start + e.span <= a || e.start >= qend) return;
        overlap += l2_overlap(a, blk, stride, count, e);
        bool same = e.start == a && e.blk == blk && e.stride == stride && e.count == count;
        bool inside = count == 1 && e.start >= a && e.start + e.span <= qend;
        if ((same || inside) && n_stale < 8) stale[n_stale++] = &e;
    }, more);
    if (!g_block_l2.empty() && overlap < bytes) {   // what the block's cores wrote (a hand-off)
        BlockL2& b = *g_block_l2[static_cast<size_t>(s.group)];
        std::lock_guard<std::mutex> lock(b.mu);
        l2_expire(b.written, share * static_cast<uint64_t>(s.cfg.mix_ratio + 1), b.clock);
        l2_scan(b.written, a, blk, stride, count, [&](L2Entry& e) {
            if (e.start + e.span > a && e.start < qend) overlap += l2_overlap(a, blk, stride, count, e);
        }, more);
    }
    for (int i = 0; i < n_stale; ++i) l2.drop(*stale[i]);
    s.l2_clock += bytes;
    l2.add(a, blk, stride, count, s.l2_clock);
    return bytes - std::min(overlap, bytes);
}

VClock& issue_on(int p) {
    State& s = S();
    VClock& v = s.vc[p];
    if (p != static_cast<int>(Pipe::S)) v.join(s.vc[static_cast<int>(Pipe::S)]);
    return v;
}

EventMark mark_on(int src) {
    State& s = S();
    EventMark m;
    m.vc = issue_on(src);
    // a flag is an instruction of its pipe: it fires after a WaitFlag queued there before it too
    // (TQue::FreeTensor's flag on V after a WaitFlag<MTE3_V> fires when the copy-out has finished)
    m.time = src == static_cast<int>(Pipe::S) ? s.issue
                                              : std::max(s.issue, std::max(s.pipe_done[src], s.pipe_free[src]));
    m.set = true;
    return m;
}

void wait_on(int dst, const EventMark& m) {
    State& s = S();
    issue_on(dst).join(m.vc);
    if (dst == static_cast<int>(Pipe::S)) {
        s.issue = std::max(s.issue, m.time);
    } else {
        s.pipe_free[dst] = std::max(s.pipe_free[dst], std::max(m.time, s.issue));
    }
}

double drain_time() {
    State& s = S();
    double t = s.issue;
    for (int i = 0; i < NPIPES; ++i) t = std::max(t, std::max(s.pipe_free[i], s.pipe_done[i]));
    return t;
}

void release_all_pipes(double t) {
    State& s = S();
    VClock all;
    for (int i = 0; i < NPIPES; ++i) all.join(s.vc[i]);
    for (int i = 0; i < NPIPES; ++i) {
        s.vc[i] = all;
        s.pipe_free[i] = std::max(s.pipe_free[i], t);
    }
    s.issue = std::max(s.issue, t);
}

std::string buffer_label(int b) {
    State& s = S();
    const Buffer& bf = s.bufs[b];
    const char* pos = position_label(bf.pos);
    if (bf.queue >= 0) {
        const QueueState& q = s.queues[bf.queue];
        return fmt("a TQue<%s> buffer (InitBuffer at line %d, %s 0x%x)", pos, q.init_loc.line, space_name(bf.space),
                   bf.addr);
    }
    return fmt("a TBuf<%s> (InitBuffer at line %d, %s 0x%x)", pos, bf.alloc_loc.line, space_name(bf.space), bf.addr);
}

std::string sync_advice(int first, int second) {
    if (first == static_cast<int>(Pipe::MTE2) && second == static_cast<int>(Pipe::V))
        return "EnQue the tile after the copy and DeQue it before the vector op, or SetFlag/WaitFlag<HardEvent::MTE2_V>";
    if (first == static_cast<int>(Pipe::V) && second == static_cast<int>(Pipe::MTE3))
        return "EnQue the tile after the vector op and DeQue it before the copy out, or SetFlag/WaitFlag<HardEvent::V_MTE3>";
    if (first == static_cast<int>(Pipe::V) && second == static_cast<int>(Pipe::MTE2))
        return "FreeTensor the tile and AllocTensor it again before the next copy in, or SetFlag/WaitFlag<HardEvent::V_MTE2>";
    if (first == static_cast<int>(Pipe::MTE3) && second == static_cast<int>(Pipe::V))
        return "FreeTensor the tile and AllocTensor it again before writing it, or SetFlag/WaitFlag<HardEvent::MTE3_V>";
    return fmt("SetFlag<HardEvent::%s_%s> after the first and WaitFlag<HardEvent::%s_%s> before the second", pipe_name(first),
               pipe_name(second), pipe_name(first), pipe_name(second));
}

void missing_sync(int b, const Access& first, int second, bool second_writes) {
    State& s = S();
    fail("missing-sync", s.cur_api, s.cur_loc,
         fmt("%s on %s %s %s that %s at line %d %s on %s, and no event orders the two: on the NPU they can overlap "
             "(a race). Add %s",
             s.cur_api, pipe_name(second), second_writes ? "writes" : "reads", buffer_label(b).c_str(), first.api,
             first.line, first.write ? "wrote" : "read", pipe_name(first.pipe), sync_advice(first.pipe, second).c_str()));
}

void check_access(const Operand& o, int p, const VClock& v) {
    Buffer& bf = S().bufs[o.buf];
    if (bf.internal) return;
    for (const Access& a : bf.accesses)
        if (v.c[a.pipe] < a.epoch && conflicts(o, p, a)) missing_sync(o.buf, a, p, o.write);
}

void record_access(const Operand& o, int p, uint32_t epoch) {
    State& s = S();
    Buffer& bf = s.bufs[o.buf];
    if (bf.internal) return;
    std::vector<Access>& acc = bf.accesses;
    // an access covering an older one of the same pipe, or a write covering any older access
    // (ordered before it, or the check above failed), replaces it
    size_t k = 0;
    for (size_t i = 0; i < acc.size(); ++i) {
        const Access& a = acc[i];
        bool covered = o.blk == 0 && o.lo <= a.lo && a.hi <= o.hi && (o.write || (a.pipe == p && !a.write));
        if (!covered) acc[k++] = a;
    }
    acc.resize(k);
    if (acc.size() >= 32) {
        // forget accesses every pipe is already ordered after: nothing later can race with them
        k = 0;
        for (size_t i = 0; i < acc.size(); ++i) {
            bool known = true;
            for (int q = 0; q < NPIPES && known; ++q) known = s.vc[q].c[acc[i].pipe] >= acc[i].epoch;
            if (!known) acc[k++] = acc[i];
        }
        acc.resize(k);
        if (acc.size() >= 32) acc.erase(acc.begin());  // bounded memory: the oldest goes unchecked
    }
    acc.push_back(Access{o.lo, o.hi, o.blk, o.stride, epoch, static_cast<int8_t>(p), o.write, s.cur_api, s.cur_loc.line});
}

void auto_sync_scalar(const Operand& o) {
    State& s = S();
    const int sp = static_cast<int>(Pipe::S);
    bool wait[NPIPES] = {};
    for (const Access& a : s.bufs[o.buf].accesses)
        if (conflicts(o, sp, a)) wait[a.pipe] = true;
    for (int q = 0; q < NPIPES; ++q)
        if (wait[q]) wait_on(sp, mark_on(q));
}

double schedule(Pipe pipe, double cycles, const Deps& d, double gm_bytes, double latency) {
    State& s = S();
    int p = static_cast<int>(pipe);
    s.stats.n_instr++;
    s.issue += s.cfg.issue_cycles;
    s.stats.busy[static_cast<int>(Pipe::S)] += s.cfg.issue_cycles;
    VClock& v = issue_on(p);
    const uint32_t epoch = ++v.c[p];
    s.last_pipe = static_cast<int8_t>(p);
    s.last_epoch = epoch;
    double start = std::max(s.issue, s.pipe_free[p]);
    for (int b : d.rd)
        if (b >= 0 && s.bufs[b].internal) start = std::max(start, s.bufs[b].wr_end);
    for (int b : d.wr)
        if (b >= 0 && s.bufs[b].internal) start = std::max(start, s.bufs[b].acc_end);
    for (int i = 0; i < s.n_operands; ++i) check_access(s.operands[i], p, v);
    for (int i = 0; i < s.n_operands; ++i) record_access(s.operands[i], p, epoch);
    s.n_operands = 0;
    // GM traffic: every active core (in a mixed launch, every core of its kind: hbm_sharers) gets
    // an equal share of HBM bandwidth, for reads and writes together; a transfer runs no faster
    // than that share, and the core's total GM bytes over
    // its share is a floor on its time (applied by the harness at block end).
    double hbm_cycles = 0;
    if (gm_bytes > 0) {
        hbm_cycles = gm_bytes / hbm_bytes_per_cycle();
        s.stats.busy[static_cast<int>(Pipe::HBM)] += hbm_cycles;
        s.phase_hbm += gm_bytes;
    }
    double dur = std::max(cycles, hbm_cycles);
    double end = start + dur;
    trace_record(p, start, end);
    s.pipe_free[p] = end;
    s.stats.busy[p] += dur;
    const double ready = end + latency;  // data lands `latency` cycles after the transfer left the pipe
    s.pipe_done[p] = std::max(s.pipe_done[p], ready);
    for (int b : d.rd)
        if (b >= 0 && s.bufs[b].internal) s.bufs[b].acc_end = std::max(s.bufs[b].acc_end, end);
    for (int b : d.wr)
        if (b >= 0 && s.bufs[b].internal) {
            s.bufs[b].wr_end = std::max(s.bufs[b].wr_end, ready);
            s.bufs[b].acc_end = std::max(s.bufs[b].acc_end, ready);
        }
    s.stats.end = std::max(s.stats.end, ready);
    return ready;
}

void schedule_gm_read(int dst_buf, double moved, const void* src, uint64_t blk, uint64_t stride, uint64_t count) {
    State& s = S();
    Deps d;
    d.wr[0] = dst_buf;
    const uint64_t bytes = blk * count;
    if (count > 0)
        gm_read_ordered(src, blk, stride, count, static_cast<int>(Pipe::MTE2),
                        "SetFlag/WaitFlag<HardEvent::MTE3_MTE2> between the copy out and this copy in");
    uint64_t hbm = gm_read_hbm_bytes(src, blk, stride, count);
    double from_hbm = bytes ? static_cast<double>(hbm) / static_cast<double>(bytes) : 1.0;
    double cycles = s.cfg.mte_overhead + moved * from_hbm / s.cfg.mte2_bpc + moved * (1.0 - from_hbm) / s.cfg.l2_bpc;
    schedule(Pipe::MTE2, cycles, d, static_cast<double>(hbm), s.cfg.gm_latency);
    s.stats.gm_read += hbm;
}

void schedule_scalar(double cycles, int buf, uint32_t lo, uint32_t hi, bool read, bool write) {
    State& s = S();
    const int sp = static_cast<int>(Pipe::S);
    if (buf >= 0) {
        Operand ops[2] = {{buf, lo, hi, false}, {buf, lo, hi, true}};
        const Operand* first = read ? &ops[0] : &ops[1];
        const Operand* last = write ? &ops[2] : &ops[1];
        if (s.cfg.auto_sync)
            for (const Operand* o = first; o != last; ++o) auto_sync_scalar(*o);
        VClock& v = s.vc[sp];
        const uint32_t epoch = ++v.c[sp];
        for (const Operand* o = first; o != last; ++o) check_access(*o, sp, v);
        for (const Operand* o = first; o != last; ++o) record_access(*o, sp, epoch);
    }
    double start = s.issue;
    s.issue = start + cycles;
    trace_record(sp, start, s.issue);
    s.stats.busy[sp] += cycles;
    s.pipe_done[sp] = s.issue;
    s.stats.end = std::max(s.stats.end, s.issue);
}

std::string gm_describe(uintptr_t a, uint64_t bytes) {
    const GmRegion* best = nullptr;
    unsigned long long bestd = 0;
    for (const GmRegion& r : S().gm) {
        unsigned long long d = a < r.base ? r.base - a : (a + bytes > r.base + r.bytes ? a + bytes - (r.base + r.bytes) : 0);
        if (best == nullptr || d < bestd) {
            best = &r;
            bestd = d;
        }
    }
    if (!best) return fmt("0x%llx (no GM buffers were passed)", static_cast<unsigned long long>(a));
    long long off = static_cast<long long>(a) - static_cast<long long>(best->base);
    if (a < best->base)
        return fmt("%s%+lld bytes, %llu bytes before the start of buffer '%s' (%llu bytes)", best->name.c_str(), off,
                   bestd, best->name.c_str(), static_cast<unsigned long long>(best->bytes));
    return fmt("%s%+lld bytes: the access ends %llu bytes past the end of buffer '%s' (%llu bytes)", best->name.c_str(),
               off, bestd, best->name.c_str(), static_cast<unsigned long long>(best->bytes));
}

void interval_add(std::map<uint64_t, uint64_t>& set, uint64_t lo, uint64_t hi) {
    auto it = set.upper_bound(lo);
    if (it != set.begin() && std::prev(it)->second >= lo) {
        --it;
        lo = it->first;
        hi = std::max(hi, it->second);
        it = set.erase(it);
    }
    while (it != set.end() && it->first <= hi) {
        hi = std::max(hi, it->second);
        it = set.erase(it);
    }
    set.emplace(lo, hi);
}

void interval_remove(std::map<uint64_t, uint64_t>& set, uint64_t lo, uint64_t hi) {
    auto it = set.upper_bound(lo);
    if (it != set.begin() && std::prev(it)->second > lo) --it;
    while (it != set.end() && it->first < hi) {
        const uint64_t a = it->first, b = it->second;
        it = set.erase(it);
        if (a < lo) set.emplace(a, lo);
        if (b > hi) { set.emplace(hi, b); break; }
    }
}

void record_gm_access(const GmRegion* r, uint64_t lo, uint64_t hi, bool write, const char* api, const Loc& loc) {
    if (r->scratch ? hi <= r->track_from : (!r->output || !write)) return;
    State& s = S();
    const size_t region = static_cast<size_t>(r - s.gm.data());
    if (write) {
        s.gm_writes.add(region, lo, hi, api, loc, s.phase, s.atomic_add ? WR_ATOMIC : 0);
        // the bytes hold what this write puts there (a copy of garbage marks its garbage after this)
        auto garbage = s.gm_garbage.find(region);
        if (garbage != s.gm_garbage.end() && !s.atomic_add) interval_remove(garbage->second.bytes, lo, hi);
        if (r->scratch) interval_add(s.scratch_own, lo, hi);
        return;
    }
    s.scratch_reads.add(region, lo, hi, api, loc, s.phase, 0);
    interval_gaps(s.scratch_own, lo, hi,
                  [&](uint64_t glo, uint64_t ghi) { s.scratch_unowned.add(region, glo, ghi, api, loc, s.phase, 0); });
}

namespace {
// Rows of `blk` bytes `stride` apart from `lo` (stride >= blk; one row when count is 1).
struct Rows {
    uintptr_t lo;
    uint64_t blk, stride, count;
    uintptr_t hi() const { return lo + (count - 1) * stride + blk; }
};

// Whether two row sets share a byte, and the first such byte of `a`'s rows in `at`. Rows of a set
// are in address order and do not overlap, so for each row of `a` only the first row of `b` that
// ends past its start can meet it. A set whose rows overlap (stride < blk) is taken as its span.
bool rows_meet(Rows a, Rows b, uintptr_t& at) {
    if (a.stride < a.blk) a = Rows{a.lo, a.hi() - a.lo, a.hi() - a.lo, 1};
    if (b.stride < b.blk) b = Rows{b.lo, b.hi() - b.lo, b.hi() - b.lo, 1};
    if (!(a.lo < b.hi() && b.lo < a.hi())) return false;
    for (uint64_t i = 0; i < a.count; ++i) {
        const uintptr_t r0 = a.lo + i * a.stride, r1 = r0 + a.blk;
        if (r0 >= b.hi()) break;
        const uint64_t j = r0 >= b.lo + b.blk ? (r0 - b.lo - b.blk) / b.stride + 1 : 0;
        if (j >= b.count) continue;
        const uintptr_t s0 = b.lo + j * b.stride;
        if (s0 < r1) {
            at = std::max(r0, s0);
            return true;
        }
    }
    return false;
}
}  // namespace

void gm_read_ordered(const void* addr, uint64_t bytes, int reader, const char* advice) {
    gm_read_ordered(addr, bytes, bytes, 1, reader, advice);
}

void gm_read_ordered(const void* addr, uint64_t blk, uint64_t stride, uint64_t count, int reader, const char* advice) {
    State& s = S();
    if (s.gm_pending.empty() || blk == 0 || count == 0) return;
    const VClock& scalar = s.vc[static_cast<int>(Pipe::S)];
    // a copy the scalar unit has waited for is ordered before every later instruction
    s.gm_pending.erase(std::remove_if(s.gm_pending.begin(), s.gm_pending.end(),
                                      [&](const State::GmPending& w) { return scalar.c[w.pipe] >= w.epoch; }),
                       s.gm_pending.end());
    const VClock& v = issue_on(reader);
    const Rows read{reinterpret_cast<uintptr_t>(addr), blk, count > 1 ? stride : blk, count};
    for (const State::GmPending& w : s.gm_pending) {
        uintptr_t at = 0;
        if (!(v.c[w.pipe] < w.epoch &&
              rows_meet(read, Rows{w.lo, w.blk, w.stride, (w.hi - w.lo - w.blk) / w.stride + 1}, at)))
            continue;
        const GmRegion* r = gm_find(at, 1);
        const std::string where = r ? fmt("'%s'+%llu bytes", r->name.c_str(), static_cast<unsigned long long>(at - r->base))
                                    : gm_describe(at, 1);
        // the event is the writer's pipe's: a Fixpipe's copy out is ordered by FIX_MTE2, not MTE3_MTE2
        std::string sync = advice;
        const std::string mte3 = "MTE3_MTE2", fix = "FIX_MTE2";
        const size_t at_event = sync.find(mte3);
        if (w.pipe == static_cast<int8_t>(Pipe::FIX) && at_event != std::string::npos) sync.replace(at_event, mte3.size(), fix);
        fail("missing-sync", s.cur_api, s.cur_loc,
             fmt("%s on %s reads GM at %s that %s at line %d wrote on %s, and no event orders the two: on the NPU "
                 "the read can overtake the copy (a race). Add %s",
                 s.cur_api, pipe_name(reader), where.c_str(), w.api, w.line, pipe_name(w.pipe), sync.c_str()));
    }
}

void gm_check(const char* api, const Loc& loc, const void* p, uint64_t bytes, const char* what) {
    if (bytes == 0) return;
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    const GmRegion* r = gm_find(a, bytes);
    if (!r)
        fail("gm-bounds", api, loc,
             fmt("%s %s %llu bytes of GM at %s, outside every buffer the host passed", api, what,
                 static_cast<unsigned long long>(bytes), gm_describe(a, bytes).c_str()));
    const uint64_t lo = a - r->base, hi = a + bytes - r->base;
    if (hi > r->bytes)
        warn("gm-padding", api, loc,
             fmt("%s %s %llu bytes of GM at %s+%llu bytes, %llu of them past the end of '%s' (%llu bytes) in the "
                 "padding of its device allocation (aclrtMalloc rounds a size up to 32 bytes and adds 32): %s",
                 api, what, static_cast<unsigned long long>(bytes), r->name.c_str(),
                 static_cast<unsigned long long>(lo), static_cast<unsigned long long>(hi - std::max(lo, r->bytes)),
                 r->name.c_str(), static_cast<unsigned long long>(r->bytes),
                 what[0] == 'w' ? "those bytes are not part of the output and nothing reads them"
                                : "on the NPU those bytes are garbage, which the results must not depend on"));
    // Every API access to GM is bounds-checked here ("reads ...", "writes ..."), so this is where
    // writes to outputs and accesses to scratch are recorded (the tensor's own bytes only).
    if (lo < r->bytes) record_gm_access(r, lo, std::min(hi, r->bytes), what[0] == 'w', api, loc);
}

void note_scratch_rows(const char* api, const Loc& loc, const void* p, int64_t rows, uint64_t row_bytes,
                       uint64_t stride) {
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    const GmRegion* r = rows > 0 ? gm_find(a, row_bytes) : nullptr;
    if (!r || !r->scratch) return;
    for (int64_t i = 0; i < rows; ++i) {
        uint64_t lo = a - r->base + static_cast<uint64_t>(i) * stride;
        if (lo < r->bytes) record_gm_access(r, lo, std::min(lo + row_bytes, r->bytes), false, api, loc);
    }
}

}  // namespace asc_sim
