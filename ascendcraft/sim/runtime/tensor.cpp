// ascendcraft AscendC CPU simulator: the bodies of tensor.h's functions, compiled once per
// library version and linked into every kernel (build.py), so a kernel's build compiles only itself.
#include "kernel_operator.h"

namespace AscendC {

int PositionSpace(TPosition p) {
    switch (p) {
        case TPosition::A1: case TPosition::B1: case TPosition::C1: case TPosition::TSCM: return asc_sim::SP_L1;
        case TPosition::A2: return asc_sim::SP_L0A;
        case TPosition::B2: return asc_sim::SP_L0B;
        case TPosition::CO1: return asc_sim::SP_L0C;
        case TPosition::C2: return asc_sim::SP_BT;
        default: return asc_sim::SP_UB;
    }
}

}  // namespace AscendC

namespace asc_sim {

int pipe_index(AscendC::pipe_t p) {
    switch (p) {
        case AscendC::PIPE_S: return static_cast<int>(Pipe::S);
        case AscendC::PIPE_V: case AscendC::PIPE_V2: return static_cast<int>(Pipe::V);
        case AscendC::PIPE_M: return static_cast<int>(Pipe::M);
        case AscendC::PIPE_MTE1: return static_cast<int>(Pipe::MTE1);
        case AscendC::PIPE_MTE2: return static_cast<int>(Pipe::MTE2);
        case AscendC::PIPE_MTE3: return static_cast<int>(Pipe::MTE3);
        case AscendC::PIPE_FIX: return static_cast<int>(Pipe::FIX);
        default: return -1;
    }
}

const char* event_label(AscendC::HardEvent e, bool set) {
    static const char* n[] = {"MTE2_MTE1", "MTE1_MTE2", "MTE1_M", "M_MTE1", "MTE2_V", "V_MTE2", "MTE3_V", "V_MTE3",
                              "M_V", "V_M", "V_V", "MTE3_MTE1", "MTE1_MTE3", "MTE1_V", "MTE2_M", "M_MTE2", "V_MTE1",
                              "M_FIX", "FIX_M", "MTE3_MTE2", "MTE2_MTE3", "S_V", "V_S", "S_MTE2", "MTE2_S", "S_MTE3",
                              "MTE3_S", "MTE2_FIX", "FIX_MTE2", "FIX_S", "M_S", "FIX_MTE3", "MTE1_FIX", "FIX_MTE1",
                              "FIX_FIX"};
    constexpr int count = static_cast<int>(sizeof n / sizeof n[0]);
    static const std::vector<std::string> labels = [] {   // built once (thread-safe static init)
        std::vector<std::string> v;
        for (int k = 0; k < 2 * count; ++k) v.push_back(std::string(k < count ? "WaitFlag<" : "SetFlag<") + n[k % count] + ">");
        return v;
    }();
    const int i = static_cast<int>(e);
    if (i < 0 || i >= count) return set ? "SetFlag" : "WaitFlag";
    return labels[(set ? count : 0) + i].c_str();
}

std::pair<int, int> event_pipes(AscendC::HardEvent e) {
    using H = AscendC::HardEvent;
    const int s = 0, v = 1, m = 2, m1 = 3, m2 = 4, m3 = 5, f = 6;
    switch (e) {
        case H::MTE2_MTE1: return {m2, m1}; case H::MTE1_MTE2: return {m1, m2}; case H::MTE1_M: return {m1, m};
        case H::M_MTE1: return {m, m1}; case H::MTE2_V: return {m2, v}; case H::V_MTE2: return {v, m2};
        case H::MTE3_V: return {m3, v}; case H::V_MTE3: return {v, m3}; case H::M_V: return {m, v};
        case H::V_M: return {v, m}; case H::V_V: return {v, v}; case H::MTE3_MTE1: return {m3, m1};
        case H::MTE1_MTE3: return {m1, m3}; case H::MTE1_V: return {m1, v}; case H::MTE2_M: return {m2, m};
        case H::M_MTE2: return {m, m2}; case H::V_MTE1: return {v, m1}; case H::M_FIX: return {m, f};
        case H::FIX_M: return {f, m}; case H::MTE3_MTE2: return {m3, m2}; case H::MTE2_MTE3: return {m2, m3};
        case H::S_V: return {s, v}; case H::V_S: return {v, s}; case H::S_MTE2: return {s, m2};
        case H::MTE2_S: return {m2, s}; case H::S_MTE3: return {s, m3}; case H::MTE3_S: return {m3, s};
        case H::MTE2_FIX: return {m2, f}; case H::FIX_MTE2: return {f, m2}; case H::FIX_S: return {f, s};
        case H::M_S: return {m, s}; case H::FIX_MTE3: return {f, m3}; case H::MTE1_FIX: return {m1, f};
        case H::FIX_MTE1: return {f, m1}; case H::FIX_FIX: return {f, f}; default: return {s, s};
    }
}

int producer_pipe(AscendC::TPosition p) {
    using P = AscendC::TPosition;
    switch (p) {
        case P::VECIN: case P::A1: case P::B1: case P::C1: return static_cast<int>(Pipe::MTE2);
        case P::A2: case P::B2: case P::C2: return static_cast<int>(Pipe::MTE1);
        case P::CO1: return static_cast<int>(Pipe::M);
        case P::CO2: return static_cast<int>(Pipe::FIX);
        default: return static_cast<int>(Pipe::V);  // VECOUT, VECCALC
    }
}

int consumer_pipe(AscendC::TPosition p) {
    using P = AscendC::TPosition;
    switch (p) {
        case P::VECOUT: case P::CO2: return static_cast<int>(Pipe::MTE3);
        case P::A1: case P::B1: case P::C1: return static_cast<int>(Pipe::MTE1);
        case P::A2: case P::B2: case P::C2: return static_cast<int>(Pipe::M);
        case P::CO1: return static_cast<int>(Pipe::FIX);
        default: return static_cast<int>(Pipe::V);  // VECIN, VECCALC
    }
}

void operand_rows(uint64_t blk, uint64_t stride) {
    State& s = S();
    if (s.n_operands > 0 && stride > blk) {
        s.operands[s.n_operands - 1].blk = static_cast<uint32_t>(blk);
        s.operands[s.n_operands - 1].stride = static_cast<uint32_t>(stride);
    }
}

void reset_core(int64_t block_idx) {
    State& s = S();
    const Config& c = s.cfg;
    s.block_idx = block_idx;
    ::block_idx = block_idx;
    ::block_num = s.cfg.block_dim;
    s.phase_hbm = s.phase_start = 0;
    uint32_t caps[SP_COUNT] = {c.ub_bytes, c.l1_bytes, c.l0a_bytes, c.l0b_bytes, c.l0c_bytes, c.bt_bytes, c.fb_bytes};
    for (int i = 0; i < SP_COUNT; ++i) {
        Space& sp = s.spaces[i];
        sp.cap = caps[i];
        sp.used = 0;
        if (sp.mem.size() != caps[i]) {
            // cost-only runs move no data: on-chip memory reads as zeros, so a value read on the
            // scalar unit (a class index, say) is 0 and data-dependent addresses stay in range
            sp.mem.assign(caps[i], c.cost_only ? 0x00 : 0xff);
            sp.shadow.assign(caps[i], 0);
        } else if (!c.cost_only) {
            std::memset(sp.mem.data(), 0xff, caps[i]);  // garbage: NaN for float/half
            std::memset(sp.shadow.data(), 0, caps[i]);
        }
    }
    s.bufs.clear();
    s.queues.clear();
    s.live_pipes = 0;
    s.cur_pipe = nullptr;
    std::memset(s.pos_buffers, 0, sizeof s.pos_buffers);
    s.total_buffers = 0;
    s.mask_counter = false;
    s.mask_hi = s.mask_lo = ~0ull;
    s.max_min_cnt = s.acc_val = 0;
    s.op_read_garbage = false;
    s.garbage_origin.clear();
    s.gm_garbage.clear();
    s.deq_scale = 1.0f;
    s.atomic_add = false;
    s.l2_recent.clear();
    s.l2_clock = 0;
    for (double& p : s.pipe_free) p = 0;
    for (double& p : s.pipe_done) p = 0;
    s.issue = 0;
    for (VClock& v : s.vc) v = VClock{};
    s.gm_pending.clear();
    std::memset(s.flag_pending, 0, sizeof s.flag_pending);
    s.stats = CoreStats{};
    s.aborting = false;
    s.cur_api = "";
}

}  // namespace asc_sim

namespace AscendC {

void cross_core_wait(uint16_t flagId, const asc_sim::Loc& loc) {
    asc_sim::enter("CrossCoreWaitFlag", loc);
    asc_sim::State& s = asc_sim::S();
    if (!asc_sim::hook_cross_scheduler())
        asc_sim::fail("cross-core-flag", "CrossCoreWaitFlag", loc,
                      "CrossCoreWaitFlag in a kernel whose type runs one kind of core (no KERNEL_TYPE_MIX_*): no flag "
                      "is ever delivered; declare KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2) (modes 1 and 2), or "
                      "KERNEL_TYPE_MIX_AIV_1_0 for mode 0 among vector cores");
    const double arrive = s.issue;
    const double fired = asc_sim::cross_take(s.thread, flagId & 15, "CrossCoreWaitFlag", loc);
    if (fired > arrive) asc_sim::trace_record(static_cast<int>(asc_sim::Pipe::S), arrive, fired, asc_sim::TR_BARRIER);
    s.issue = std::max(s.issue, fired);
}

TPipe::TPipe(::asc_sim::Loc asc_loc_) {
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter("TPipe::TPipe", asc_loc_);
    if (s.live_pipes > 0)
        asc_sim::fail("second-tpipe", "TPipe::TPipe", asc_loc_,
                      "a second TPipe was constructed while another is alive: only one TPipe may exist at a "
                      "time (on the NPU this can hang)");
    s.live_pipes++;
    s.cur_pipe = this;
    loc_ = asc_loc_;
}

TPipe::~TPipe() noexcept(false) {
    asc_sim::State& s = asc_sim::S();
    s.live_pipes--;
    if (s.cur_pipe == this) s.cur_pipe = nullptr;
    if (!s.aborting && !destroyed_) check_freed(loc_);
    destroyed_ = true;
}

int TPipe::alloc_space(const char* api, const asc_sim::Loc& loc, int sp, TPosition pos, uint32_t alen, int num,
                       uint32_t len) {
    asc_sim::State& s = asc_sim::S();
    asc_sim::Space& space = s.spaces[sp];
    asc_sim::check_core_space(api, loc, sp);
    if (s.total_buffers + 1 > s.cfg.max_buffers)
        asc_sim::fail("max-buffers", api, loc,
                      asc_sim::fmt("InitBuffer(%s, num=%d, len=%u): the kernel would use more than %d buffers in "
                                   "total", PositionName(pos), num, len, s.cfg.max_buffers));
    // On the NPU, InitBuffer only hands out addresses: a buffer past the end of the memory is harmless
    // until a tensor of it is used (use_local: an error there, naming this line). The vendor's CPU debug
    // mode aborts here instead. A buffer reaching past twice the capacity is a tiling gone wrong: an
    // error at once (the simulator gives the buffers past the end host memory to keep them inert).
    const bool beyond = static_cast<uint64_t>(space.used) + alen > space.cap;
    if (beyond) {
        const char* rule = asc_sim::capacity_rule(sp);
        const std::string what = asc_sim::fmt(
            "InitBuffer(%s, num=%d, len=%u): %s capacity exceeded: %u bytes are already allocated and a %u-byte "
            "buffer does not fit in the %u bytes of %s on %s", PositionName(pos), num, len, asc_sim::space_name(sp),
            space.used, alen, space.cap, asc_sim::space_name(sp), s.cfg.chip.c_str());
        if (static_cast<uint64_t>(space.used) + alen > 2ull * space.cap) asc_sim::fail(rule, api, loc, what);
        asc_sim::warn(rule, api, loc, what + ": using a tensor of this buffer is an error (on the NPU nothing checks "
                                             "InitBuffer, and an unused buffer is harmless)");
        if (space.mem.size() < space.used + alen) {
            space.mem.resize(space.used + alen, 0xff);
            space.shadow.resize(space.used + alen, 0);
        }
    }
    s.total_buffers++;
    asc_sim::Buffer bf;
    bf.space = sp;
    bf.pos = static_cast<int>(pos);
    bf.addr = space.used;
    bf.len = alen;
    bf.beyond = beyond;
    bf.init_loc = loc;
    space.used += alen;
    s.bufs.push_back(bf);
    return static_cast<int>(s.bufs.size()) - 1;
}

void TPipe::check_freed(const asc_sim::Loc& loc) {
    asc_sim::State& s = asc_sim::S();
    for (size_t qi = 0; qi < s.queues.size(); ++qi) {
        const asc_sim::QueueState& qs = s.queues[qi];
        for (int b : qs.slots) {
            const asc_sim::Buffer& bf = s.bufs[b];
            if (bf.state == asc_sim::BUF_ALLOC || bf.state == asc_sim::BUF_ENQUEUED ||
                bf.state == asc_sim::BUF_DEQUEUED) {
                const char* st = bf.state == asc_sim::BUF_ENQUEUED ? "still EnQue'd (never DeQue'd)"
                                                                     : "never released with FreeTensor";
                asc_sim::fail("not-freed", "TPipe::~TPipe", bf.alloc_loc,
                              asc_sim::fmt("at kernel end (TPipe at line %d destroyed) a tensor of TQue<%s> "
                                           "(InitBuffer at line %d) allocated at line %d is %s",
                                           loc.line, PositionName(static_cast<TPosition>(qs.pos)),
                                           qs.init_loc.line, bf.alloc_loc.line, st));
            }
        }
    }
}

}  // namespace AscendC

namespace asc_sim {

void set_flag_at(AscendC::HardEvent evt, int32_t eventID, const Loc& loc) {
    State& s = S();
    enter("SetFlag", loc);
    int e = static_cast<int>(evt), id = eventID & 7;
    auto pp = event_pipes(evt);
    EventMark m = mark_on(pp.first);
    s.flag_mark[e][id] = m;
    s.flag_pending[e][id]++;
    trace_record(pp.first, m.time, m.time, TR_SET, event_label(evt, true));
}

void wait_flag_at(AscendC::HardEvent evt, int32_t eventID, const Loc& loc) {
    State& s = S();
    enter("WaitFlag", loc);
    int e = static_cast<int>(evt), id = eventID & 7;
    auto pp = event_pipes(evt);
    if (s.flag_pending[e][id] <= 0)
        fail("sync-unpaired", "WaitFlag", loc,
             fmt("WaitFlag(event %d, id %d) with no matching SetFlag before it: on the NPU the pipe waits forever", e,
                 eventID));
    s.flag_pending[e][id]--;
    wait_on(pp.second, s.flag_mark[e][id]);
    trace_record(pp.second, s.flag_mark[e][id].time, s.flag_mark[e][id].time, TR_WAIT, event_label(evt, false));
}

// The HardEvent SRC_DST of a pair of pipes (set_flag/wait_flag name the pipes, SetFlag the event).
static AscendC::HardEvent event_of(const char* api, AscendC::pipe_t src, AscendC::pipe_t dst, const Loc& loc) {
    const int a = pipe_index(src), b = pipe_index(dst);
    for (int e = 0; e < static_cast<int>(AscendC::HardEvent::MAX); ++e) {
        auto pp = event_pipes(static_cast<AscendC::HardEvent>(e));
        if (a >= 0 && pp.first == a && pp.second == b) return static_cast<AscendC::HardEvent>(e);
    }
    fail("sync-pipes", api, loc,
         fmt("%s(%s, %s): no hardware event links these two pipes", api, pipe_name(a), pipe_name(b)));
}

}  // namespace asc_sim

void set_flag(pipe_t src, pipe_t dst, int32_t eventID, asc_sim::Loc asc_loc_) {
    asc_sim::set_flag_at(asc_sim::event_of("set_flag", src, dst, asc_loc_), eventID, asc_loc_);
}
void wait_flag(pipe_t src, pipe_t dst, int32_t eventID, asc_sim::Loc asc_loc_) {
    asc_sim::wait_flag_at(asc_sim::event_of("wait_flag", src, dst, asc_loc_), eventID, asc_loc_);
}
