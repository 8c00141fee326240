// ascendcraft AscendC CPU simulator: positions, tensors, TPipe/TQue/TBuf (sync.h: events, barriers,
// system variables, cross-core flags, debugging output).
#pragma once
#include "schedule.h"
#include "cross.h"

enum pipe_t { PIPE_S = 0, PIPE_V = 1, PIPE_M = 2, PIPE_MTE1 = 3, PIPE_MTE2 = 4, PIPE_MTE3 = 5, PIPE_ALL = 6, PIPE_V2 = 7,
              PIPE_FIX = 10 };
enum event_t { EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };

namespace AscendC {

enum class TPosition : uint8_t {
    GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM,
    C2PIPE2GM, C2PIPE2LOCAL, MAX
};
using QuePosition = TPosition;
using TBufHandle = uint8_t*;   // a queue buffer's handle (kernel_tpipe.h): the untyped EnQue/DeQue

inline const char* PositionName(TPosition p) { return asc_sim::position_label(static_cast<int>(p)); }
int PositionSpace(TPosition p);

// ---------------------------------------------------------------- pipes and events
// (global, as the compiler builtins are, and visible in AscendC)
using ::pipe_t;
using ::PIPE_S; using ::PIPE_V; using ::PIPE_M; using ::PIPE_MTE1; using ::PIPE_MTE2; using ::PIPE_MTE3;
using ::PIPE_ALL; using ::PIPE_V2; using ::PIPE_FIX;
using ::event_t;
using ::EVENT_ID0; using ::EVENT_ID1; using ::EVENT_ID2; using ::EVENT_ID3; using ::EVENT_ID4; using ::EVENT_ID5;
using ::EVENT_ID6; using ::EVENT_ID7;
using TEventID = int8_t;

enum class HardEvent : uint8_t {
    MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V, MTE3_MTE1, MTE1_MTE3,
    MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3, S_V, V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S,
    MTE2_FIX, FIX_MTE2, FIX_S, M_S, FIX_MTE3, MTE1_FIX, FIX_MTE1, FIX_FIX, MAX
};

}  // namespace AscendC

namespace asc_sim {
int pipe_index(AscendC::pipe_t p);
// (source pipe, destination pipe) of a HardEvent, from its SRC_DST name.
// "SetFlag<MTE2_V>"-style names of the events, for the timeline (trace records keep the pointer)
const char* event_label(AscendC::HardEvent e, bool set);
std::pair<int, int> event_pipes(AscendC::HardEvent e);
// The pipe that fills a queue position's buffers and the pipe that consumes them: EnQue raises
// the producer->consumer flag and DeQue waits for it; FreeTensor raises consumer->producer and
// the buffer's next AllocTensor waits for it (docs/simulator.md, "Events", with sources).
int producer_pipe(AscendC::TPosition p);
int consumer_pipe(AscendC::TPosition p);
}  // namespace asc_sim

namespace AscendC {

template <typename T> class GlobalTensor;

// ---------------------------------------------------------------- LocalTensor
template <typename T> class LocalTensor {
public:
    using PrimType = T;
    int32_t sp_ = -1;
    uint32_t addr_ = 0;   // byte address inside its on-chip space
    uint32_t size_ = 0;   // elements
    int32_t buf_ = -1;    // buffer slot (cost dependencies, use-after-free)
    uint32_t gen_ = 0;
    TPosition pos_ = TPosition::VECCALC;

    LocalTensor() = default;
    T* ptr() const { return reinterpret_cast<T*>(asc_sim::S().spaces[sp_].mem.data() + addr_); }
    bool valid() const { return sp_ >= 0; }
    LocalTensor operator[](uint32_t offset) const {
        LocalTensor r = *this;
        if (offset > size_) {
            asc_sim::fail("tensor-overflow", "LocalTensor::operator[]", asc_sim::S().cur_loc,
                          asc_sim::fmt("offset %u is past the end of a LocalTensor of %u elements (after the API "
                                       "call at this line)", offset, size_));
        }
        r.addr_ += static_cast<uint32_t>(offset * sizeof(T));
        r.size_ -= offset;
        return r;
    }
    T GetValue(uint32_t index, ASC_LOC_PARAM) const;
    template <typename S> void SetValue(uint32_t index, S value, ASC_LOC_PARAM) const;
    T& operator()(uint32_t index, ASC_LOC_PARAM) const;
    uint32_t GetSize() const { return size_; }
    uint32_t GetLength() const { return static_cast<uint32_t>(size_ * sizeof(T)); }
    void SetSize(uint32_t size) { size_ = size; }
    int32_t GetPosition() const { return static_cast<int32_t>(pos_); }
    uint64_t GetPhyAddr() const { return addr_; }
    uint64_t GetPhyAddr(uint32_t offset) const { return addr_ + offset * sizeof(T); }
    template <typename U> LocalTensor<U> ReinterpretCast() const {
        LocalTensor<U> r;
        r.sp_ = sp_;
        r.addr_ = addr_;
        r.size_ = static_cast<uint32_t>(static_cast<uint64_t>(size_) * sizeof(T) / sizeof(U));
        r.buf_ = buf_;
        r.gen_ = gen_;
        r.pos_ = pos_;
        return r;
    }
};

// ---------------------------------------------------------------- GlobalTensor
template <typename T> class GlobalTensor {
public:
    using PrimType = T;
    T* addr_ = nullptr;
    uint64_t size_ = 0;
    GlobalTensor() = default;
    void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) { addr_ = buffer; size_ = bufferSize; }
    void SetGlobalBuffer(__gm__ T* buffer) { addr_ = buffer; size_ = 0; }
    GlobalTensor operator[](uint64_t offset) const {
        GlobalTensor r = *this;
        r.addr_ = addr_ + offset;
        r.size_ = size_ > offset ? size_ - offset : 0;
        return r;
    }
    T GetValue(uint64_t offset, ASC_LOC_PARAM) const {
        asc_sim::enter("GlobalTensor::GetValue", asc_loc_);
        asc_sim::gm_check("GlobalTensor::GetValue", asc_loc_, addr_ + offset, sizeof(T), "reads");
        asc_sim::schedule_scalar(asc_sim::S().cfg.scalar_gm_cycles, -1, 0, 0, false, false);
        asc_sim::S().stats.gm_read += sizeof(T);
        if (asc_sim::S().cfg.cost_only) return T();
        return addr_[offset];
    }
    template <typename S> void SetValue(uint64_t offset, S value, ASC_LOC_PARAM) const {
        asc_sim::enter("GlobalTensor::SetValue", asc_loc_);
        asc_sim::gm_check("GlobalTensor::SetValue", asc_loc_, addr_ + offset, sizeof(T), "writes");
        asc_sim::schedule_scalar(asc_sim::S().cfg.scalar_gm_cycles, -1, 0, 0, false, false);
        asc_sim::S().stats.gm_write += sizeof(T);
        if (!asc_sim::S().cfg.cost_only) addr_[offset] = static_cast<T>(value);
    }
    T& operator()(uint64_t offset) const { return addr_[offset]; }
    uint64_t GetSize() const { return size_; }
    __gm__ T* GetPhyAddr() const { return addr_; }
    __gm__ T* GetPhyAddr(uint64_t offset) const { return addr_ + offset; }
    void SetL2CacheHint(int) {}
};

}  // namespace AscendC

namespace asc_sim {

// Validate a LocalTensor operand of an API call.  `elems` is how many elements the call
// touches from the tensor's start; `align` is the start-address alignment it needs. A strided
// read (`whole_read` false) checks its rows for initialisation itself.
template <typename T>
inline void use_local(const char* api, const Loc& loc, const char* name, const AscendC::LocalTensor<T>& t,
                      uint64_t elems, bool write, uint32_t align = 32, bool whole_read = true) {
    State& s = S();
    if (!t.valid())
        fail("invalid-tensor", api, loc,
             fmt("%s: operand %s is a LocalTensor that was never obtained from AllocTensor/DeQue/Get (or was got from "
                 "a TBuf that TPipe::InitBuffer never gave memory)", api, name));
    if (t.buf_ >= 0) {
        const Buffer& b = s.bufs[t.buf_];
        // A released buffer keeps its bytes until its queue hands it out again: a use before that works
        // on the NPU (a warning; a pipe that writes it for the next allocation while this use is in
        // flight is a missing-sync race), a use after it reads or writes another tensor's data.
        if (b.state == BUF_FREE && b.gen == t.gen_ + 1)
            warn("use-after-free", api, loc,
                 fmt("%s: operand %s (%s address 0x%x) belongs to a queue buffer released by FreeTensor at line %d "
                     "(allocated at line %d): its data stays only until the queue hands the buffer out again",
                     api, name, space_name(t.sp_), t.addr_, b.free_loc.line, b.alloc_loc.line));
        else if (b.gen != t.gen_)
            fail("use-after-free", api, loc,
                 fmt("%s: operand %s (%s address 0x%x) belongs to a queue buffer that was released by FreeTensor "
                     "and handed out again (AllocTensor at line %d): it holds another tensor's data",
                     api, name, space_name(t.sp_), t.addr_, b.alloc_loc.line));
        if (b.beyond)
            fail(capacity_rule(b.space), api, loc,
                 fmt("%s: operand %s lies in a buffer that TPipe::InitBuffer at line %d placed past the end of %s "
                     "(bytes %u..%u of a %u-byte %s on %s): there is no such memory on the NPU; make the buffers fit "
                     "(the InitBuffer calls' lengths add up to more than %s)", api, name, b.init_loc.line,
                     space_name(b.space), b.addr, b.addr + b.len, s.spaces[b.space].cap, space_name(b.space),
                     s.cfg.chip.c_str(), space_name(b.space)));
    }
    if (elems > t.size_)
        fail("tensor-overflow", api, loc,
             fmt("%s: operand %s needs %llu elements of %s but the LocalTensor holds only %u", api, name,
                 static_cast<unsigned long long>(elems), type_name<T>(), t.size_));
    if (align > 1 && t.addr_ % align != 0)
        fail("ub-align", api, loc,
             fmt("%s: operand %s starts at %s address 0x%x, which is not %u-byte aligned (offset of %u bytes)", api,
                 name, space_name(t.sp_), t.addr_, align, t.addr_ % align));
    // the vector unit may compute on garbage in UB; the cube's memories must hold values
    if (!write && whole_read) {
        if (t.sp_ == SP_UB) check_written(api, loc, name, t.sp_, t.addr_, elems * sizeof(T), sizeof(T));
        else require_written(api, loc, name, t.sp_, t.addr_, elems * sizeof(T), sizeof(T));
    }
    // the bytes this call touches, for the missing-sync check of the instruction it schedules
    if (t.buf_ >= 0 && elems > 0 && s.n_operands < 8)
        s.operands[s.n_operands++] = Operand{t.buf_, t.addr_, static_cast<uint32_t>(t.addr_ + elems * sizeof(T)), write};
}
// The last operand use_local() recorded touches only rows of `blk` bytes every `stride` bytes
// (a strided copy), not the whole range: two pipes may fill the gaps and the rows unordered.
void operand_rows(uint64_t blk, uint64_t stride);
template <typename T> inline void wrote(const AscendC::LocalTensor<T>& t, uint64_t elems) {
    mark_written(t.sp_, t.addr_, elems * sizeof(T));
}
// Element i of t holds garbage and the current op read garbage (only then is it worth asking).
template <typename T> inline bool lane_garbage(const AscendC::LocalTensor<T>& t, uint64_t i) {
    return S().op_read_garbage && first_unwritten(t.sp_, static_cast<uint32_t>(t.addr_ + i * sizeof(T)), sizeof(T)) >= 0;
}
// What an op that maps lanes one to one wrote: lane i holds a value when lane i of every source
// does (an op that read no garbage marks it all, as wrote()).
// Marks dst's first `elems` lanes: lane i garbage where garbage[i]. An op that read no garbage wrote
// values everywhere: one mark, and `garbage` need not have been computed.
template <typename T>
inline void mark_lanes(const AscendC::LocalTensor<T>& dst, uint64_t elems, const std::vector<uint8_t>& garbage) {
    if (!S().op_read_garbage || S().cfg.cost_only) return wrote(dst, elems);
    for (uint64_t i = 0; i < elems; ++i)
        mark_holds(dst.sp_, static_cast<uint32_t>(dst.addr_ + i * sizeof(T)), sizeof(T), !garbage[i]);
}
template <typename T, typename... Src>
inline void wrote_lanes(const AscendC::LocalTensor<T>& dst, uint64_t elems, const Src&... srcs) {
    std::vector<uint8_t> bad;   // first, as dst may be a source
    if (S().op_read_garbage && !S().cfg.cost_only) {
        bad.assign(elems, 0);
        for (uint64_t i = 0; i < elems; ++i) bad[i] = (lane_garbage(srcs, i) || ...);
    }
    mark_lanes(dst, elems, bad);
}

void reset_core(int64_t block_idx);

}  // namespace asc_sim

namespace AscendC {

template <typename T> T LocalTensor<T>::GetValue(uint32_t index, asc_sim::Loc asc_loc_) const {
    asc_sim::enter("LocalTensor::GetValue", asc_loc_);
    asc_sim::use_local("LocalTensor::GetValue", asc_loc_, "tensor", *this, 0, false, 1);
    if (index >= size_)
        asc_sim::fail("tensor-overflow", "LocalTensor::GetValue", asc_loc_,
                      asc_sim::fmt("index %u is outside the LocalTensor of %u elements", index, size_));
    asc_sim::require_written("LocalTensor::GetValue", asc_loc_, "tensor", sp_, addr_ + index * sizeof(T), sizeof(T),
                           sizeof(T));
    asc_sim::schedule_scalar(asc_sim::S().cfg.scalar_ub_cycles, buf_, addr_ + index * sizeof(T),
                             addr_ + (index + 1) * sizeof(T), true, false);
    return ptr()[index];
}
template <typename T> template <typename S>
void LocalTensor<T>::SetValue(uint32_t index, S value, asc_sim::Loc asc_loc_) const {
    asc_sim::enter("LocalTensor::SetValue", asc_loc_);
    asc_sim::use_local("LocalTensor::SetValue", asc_loc_, "tensor", *this, 0, true, 1);
    if (index >= size_)
        asc_sim::fail("tensor-overflow", "LocalTensor::SetValue", asc_loc_,
                      asc_sim::fmt("index %u is outside the LocalTensor of %u elements", index, size_));
    asc_sim::schedule_scalar(asc_sim::S().cfg.scalar_ub_cycles, buf_, addr_ + index * sizeof(T),
                             addr_ + (index + 1) * sizeof(T), false, true);
    ptr()[index] = static_cast<T>(value);
    asc_sim::mark_written(sp_, addr_ + index * sizeof(T), sizeof(T));
}
template <typename T> T& LocalTensor<T>::operator()(uint32_t index, asc_sim::Loc asc_loc_) const {
    asc_sim::enter("LocalTensor::operator()", asc_loc_);
    asc_sim::use_local("LocalTensor::operator()", asc_loc_, "tensor", *this, 0, true, 1);
    if (index >= size_)
        asc_sim::fail("tensor-overflow", "LocalTensor::operator()", asc_loc_,
                      asc_sim::fmt("index %u is outside the LocalTensor of %u elements", index, size_));
    asc_sim::schedule_scalar(asc_sim::S().cfg.scalar_ub_cycles, buf_, addr_ + index * sizeof(T),
                             addr_ + (index + 1) * sizeof(T), true, true);
    asc_sim::mark_written(sp_, addr_ + index * sizeof(T), sizeof(T));  // may be read or written: no uninit check
    return ptr()[index];
}

// ---------------------------------------------------------------- queues
template <TPosition src, TPosition dst, int32_t depth, auto mask = 0> class TQueBind {
public:
    int qid_ = -1;
    static constexpr TPosition srcPosition = src;
    static constexpr TPosition dstPosition = dst;
    static constexpr int32_t depthValue = depth;

    asc_sim::QueueState& q(const char* api, const asc_sim::Loc& loc) {
        if (qid_ < 0)
            asc_sim::fail("queue-uninit", api, loc,
                          asc_sim::fmt("%s on a TQue<%s> that was never given buffers with TPipe::InitBuffer", api,
                                       PositionName(src)));
        return asc_sim::S().queues[qid_];
    }

    template <typename T> LocalTensor<T> AllocTensor(ASC_LOC_PARAM) {
        const char* api = "TQue::AllocTensor";
        asc_sim::enter(api, asc_loc_);
        asc_sim::QueueState& qs = q(api, asc_loc_);
        asc_sim::State& s = asc_sim::S();
        const int nslots = static_cast<int>(qs.slots.size());
        for (int k = 0; k < nslots; ++k) {  // buffers are handed out round-robin, as on hardware
            int b = qs.slots[(qs.cursor + k) % nslots];
            asc_sim::Buffer& bf = s.bufs[b];
            if (bf.state == asc_sim::BUF_FREE) {
                qs.cursor = (qs.cursor + k + 1) % nslots;
                if (bf.freed.set) {  // the producer waits until the consumer released the buffer
                    asc_sim::wait_on(asc_sim::producer_pipe(src), bf.freed);
                    bf.freed.set = false;
                }
                bf.state = asc_sim::BUF_ALLOC;
                bf.alloc_loc = asc_loc_;
                bf.gen++;   // the tensors of its last allocation are now two generations behind
                asc_sim::mark_unwritten(bf.space, bf.addr, bf.len);  // contents are undefined
                LocalTensor<T> t;
                t.sp_ = bf.space;
                t.addr_ = bf.addr;
                t.size_ = static_cast<uint32_t>(bf.len / sizeof(T));
                t.buf_ = b;
                t.gen_ = bf.gen;
                t.pos_ = src;
                return t;
            }
        }
        std::string held;
        for (int b : qs.slots) held += asc_sim::fmt(" line %d;", s.bufs[b].alloc_loc.line);
        asc_sim::fail("alloc-no-buffer", api, asc_loc_,
                      asc_sim::fmt("AllocTensor<%s>() on a TQue<%s> with %d buffer(s) (InitBuffer at line %d): every "
                                   "buffer is still in use (allocated at%s); FreeTensor one first (on the NPU this "
                                   "blocks forever)",
                                   asc_sim::type_name<T>(), PositionName(src), qs.num, qs.init_loc.line,
                                   held.c_str()));
    }
    template <typename T> void AllocTensor(LocalTensor<T>& t, ASC_LOC_PARAM) { t = AllocTensor<T>(asc_loc_); }

    template <typename T> bool EnQue(const LocalTensor<T>& t, ASC_LOC_PARAM) {
        const char* api = "TQue::EnQue";
        asc_sim::enter(api, asc_loc_);
        asc_sim::QueueState& qs = q(api, asc_loc_);
        asc_sim::use_local(api, asc_loc_, "tensor", t, 0, true, 1);
        asc_sim::State& s = asc_sim::S();
        if (t.buf_ < 0)
            asc_sim::fail("enque-foreign", api, asc_loc_, "EnQue of a tensor that was not allocated from a queue");
        if (qs.depth > 0 && static_cast<int>(qs.fifo.size()) >= qs.depth)
            asc_sim::fail("enque-full", api, asc_loc_,
                          asc_sim::fmt("EnQue on a TQue<%s, depth=%d> that already holds %d tensor(s): more than "
                                       "'depth' EnQue calls without a DeQue",
                                       PositionName(src), qs.depth, static_cast<int>(qs.fifo.size())));
        asc_sim::Buffer& bf = s.bufs[t.buf_];
        bf.state = asc_sim::BUF_ENQUEUED;
        bf.enq = asc_sim::mark_on(asc_sim::producer_pipe(src));
        qs.fifo.push_back(t.buf_);
        return true;
    }
    template <typename T> LocalTensor<T> DeQue(ASC_LOC_PARAM) {
        const char* api = "TQue::DeQue";
        asc_sim::enter(api, asc_loc_);
        asc_sim::QueueState& qs = q(api, asc_loc_);
        asc_sim::State& s = asc_sim::S();
        if (qs.fifo.empty())
            asc_sim::fail("deque-empty", api, asc_loc_,
                          asc_sim::fmt("DeQue<%s>() on an empty TQue<%s> (InitBuffer at line %d): nothing was "
                                       "EnQue'd (on the NPU this waits forever)",
                                       asc_sim::type_name<T>(), PositionName(src), qs.init_loc.line));
        int b = qs.fifo.front();
        qs.fifo.pop_front();
        asc_sim::Buffer& bf = s.bufs[b];
        bf.state = asc_sim::BUF_DEQUEUED;
        if (bf.enq.set) {  // the consumer waits for the EnQue's flag
            asc_sim::wait_on(asc_sim::consumer_pipe(dst), bf.enq);
            bf.enq.set = false;
        }
        LocalTensor<T> t;
        t.sp_ = bf.space;
        t.addr_ = bf.addr;
        t.size_ = static_cast<uint32_t>(bf.len / sizeof(T));
        t.buf_ = b;
        t.gen_ = bf.gen;
        t.pos_ = dst;
        return t;
    }
    template <typename T> void DeQue(LocalTensor<T>& t, ASC_LOC_PARAM) { t = DeQue<T>(asc_loc_); }
    // The forms naming the user positions (kernel_tpipe.h): a TQueBind's own flags are what they order.
    template <TPosition srcUserPos, TPosition dstUserPos, typename T> bool EnQue(const LocalTensor<T>& t, ASC_LOC_PARAM) {
        return EnQue<T>(t, asc_loc_);
    }
    template <TPosition srcUserPos, TPosition dstUserPos, typename T> LocalTensor<T> DeQue(ASC_LOC_PARAM) {
        return DeQue<T>(asc_loc_);
    }
    // The untyped form (kernel_tpipe.h): the buffer's handle, here its local address.
    TBufHandle DeQue(ASC_LOC_PARAM) {
        return reinterpret_cast<TBufHandle>(static_cast<uintptr_t>(DeQue<uint8_t>(asc_loc_).addr_));
    }

    template <typename T> void FreeTensor(LocalTensor<T>& t, ASC_LOC_PARAM) {
        const char* api = "TQue::FreeTensor";
        asc_sim::enter(api, asc_loc_);
        asc_sim::QueueState& qs = q(api, asc_loc_);
        asc_sim::State& s = asc_sim::S();
        if (t.buf_ < 0 || std::find(qs.slots.begin(), qs.slots.end(), t.buf_) == qs.slots.end())
            asc_sim::fail("free-foreign", api, asc_loc_,
                          "FreeTensor of a tensor that does not belong to this queue");
        asc_sim::Buffer& bf = s.bufs[t.buf_];
        if (bf.state == asc_sim::BUF_FREE || bf.gen != t.gen_)
            asc_sim::fail("use-after-free", api, asc_loc_,
                          asc_sim::fmt("FreeTensor of a tensor that was already freed (allocated at line %d)",
                                       bf.alloc_loc.line));
        if (bf.state == asc_sim::BUF_ENQUEUED) {
            auto it = std::find(qs.fifo.begin(), qs.fifo.end(), t.buf_);
            if (it != qs.fifo.end()) qs.fifo.erase(it);
        }
        bf.state = asc_sim::BUF_FREE;
        bf.gen++;
        bf.free_loc = asc_loc_;
        bf.enq.set = false;
        bf.freed = asc_sim::mark_on(asc_sim::consumer_pipe(dst));
    }
    bool VacantInQue() { return qid_ >= 0 && static_cast<int>(asc_sim::S().queues[qid_].fifo.size()) < depth; }
    bool HasTensorInQue() { return qid_ >= 0 && !asc_sim::S().queues[qid_].fifo.empty(); }
    int32_t GetTensorCountInQue() { return qid_ >= 0 ? static_cast<int32_t>(asc_sim::S().queues[qid_].fifo.size()) : 0; }
    bool HasIdleBuffer() {
        if (qid_ < 0) return false;
        for (int b : asc_sim::S().queues[qid_].slots)
            if (asc_sim::S().bufs[b].state == asc_sim::BUF_FREE) return true;
        return false;
    }
    void FreeAllEvent() {}
};

template <TPosition pos, int32_t depth, auto mask = 0> class TQue : public TQueBind<pos, pos, depth, mask> {};

// A queue's static configuration, passed as TQue's third argument (`TQue<pos, depth, &conf>`;
// asc-devkit impl/basic_api/utils/kernel_utils_ceil_oom_que.h). The simulated queue takes its buffers
// from InitBuffer as before; the configuration's format conversions are the cube path's.
struct TQueConfig {
    bool nd2nz = false;
    bool nz2nd = false;
    bool scmBlockGroup = false;
    uint32_t bufferLen = 0;
    uint32_t bufferNumber = 0;
    uint32_t consumerSize = 0;
    TPosition consumer[8] = {};
    bool enableStaticEvtId = false;
    bool enableLoopQueue = false;
};
constexpr TQueConfig GetTQueConfig(bool nd2nzIn, bool nz2ndIn, bool scmBlockGroupIn, uint32_t bufferLenIn,
                                   uint32_t bufferNumberIn, uint32_t consumerSizeIn, const TPosition consumerIn[]) {
    return {nd2nzIn, nz2ndIn, scmBlockGroupIn, bufferLenIn, bufferNumberIn, consumerSizeIn,
            {consumerIn[0], consumerIn[1], consumerIn[2], consumerIn[3], consumerIn[4], consumerIn[5], consumerIn[6],
             consumerIn[7]}};
}

template <TPosition pos = TPosition::LCM> class TBuf {
public:
    int bid_ = -1;
    asc_sim::Buffer& b(const char* api, const asc_sim::Loc& loc) {
        if (bid_ < 0)
            asc_sim::fail("queue-uninit", api, loc,
                          asc_sim::fmt("%s on a TBuf<%s> that was never given memory with TPipe::InitBuffer", api,
                                       PositionName(pos)));
        return asc_sim::S().bufs[bid_];
    }
    // Get on a TBuf that InitBuffer never gave memory yields a tensor that is not usable: on the NPU it
    // points nowhere, which is harmless until an API reads or writes it (use_local: `invalid-tensor`).
    template <typename T> LocalTensor<T> Get(ASC_LOC_PARAM) {
        asc_sim::enter("TBuf::Get", asc_loc_);
        if (bid_ < 0) return LocalTensor<T>();
        asc_sim::Buffer& bf = b("TBuf::Get", asc_loc_);
        return make<T>(bf.addr, static_cast<uint32_t>(bf.len / sizeof(T)));
    }
    template <typename T> LocalTensor<T> Get(uint32_t len, ASC_LOC_PARAM) {
        asc_sim::enter("TBuf::Get", asc_loc_);
        if (bid_ < 0) return LocalTensor<T>();
        asc_sim::Buffer& bf = b("TBuf::Get", asc_loc_);
        if (static_cast<uint64_t>(len) * sizeof(T) > bf.len)
            asc_sim::fail("tbuf-range", "TBuf::Get", asc_loc_,
                          asc_sim::fmt("Get<%s>(%u) asks for %llu bytes from a TBuf of %u bytes",
                                       asc_sim::type_name<T>(), len,
                                       static_cast<unsigned long long>(len * sizeof(T)), bf.len));
        return make<T>(bf.addr, len);
    }
    template <typename T> LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset, ASC_LOC_PARAM) {
        asc_sim::enter("TBuf::GetWithOffset", asc_loc_);
        asc_sim::Buffer& bf = b("TBuf::GetWithOffset", asc_loc_);
        if (static_cast<uint64_t>(bufOffset) + static_cast<uint64_t>(size) * sizeof(T) > bf.len)
            asc_sim::fail("tbuf-range", "TBuf::GetWithOffset", asc_loc_,
                          asc_sim::fmt("GetWithOffset<%s>(%u, %u) ends at byte %llu of a TBuf of %u bytes",
                                       asc_sim::type_name<T>(), size, bufOffset,
                                       static_cast<unsigned long long>(bufOffset + size * sizeof(T)), bf.len));
        if (bufOffset % 32 != 0)
            asc_sim::fail("ub-align", "TBuf::GetWithOffset", asc_loc_,
                          asc_sim::fmt("GetWithOffset bufOffset %u is not a multiple of 32 bytes", bufOffset));
        return make<T>(bf.addr + bufOffset, size);
    }
    // TBuf's queue interface (kernel_tpipe.h; asc-devkit impl/basic_api/kernel_tbuf_impl.h): AllocTensor
    // and DeQue return the whole buffer as Get() does; EnQue and FreeTensor issue nothing (a TBuf has no
    // events), so they cost nothing here either, but the tensor must be this TBuf's.
    template <typename T> LocalTensor<T> AllocTensor(ASC_LOC_PARAM) { return Get<T>(asc_loc_); }
    template <typename T> void AllocTensor(LocalTensor<T>& t, ASC_LOC_PARAM) { t = Get<T>(asc_loc_); }
    template <typename T> LocalTensor<T> DeQue(ASC_LOC_PARAM) { return Get<T>(asc_loc_); }
    template <typename T> void EnQue(const LocalTensor<T>& t, ASC_LOC_PARAM) { own("TBuf::EnQue", t, asc_loc_); }
    template <typename T> void FreeTensor(LocalTensor<T>& t, ASC_LOC_PARAM) { own("TBuf::FreeTensor", t, asc_loc_); }
    template <typename T> void own(const char* api, const LocalTensor<T>& t, const asc_sim::Loc& loc) {
        asc_sim::enter(api, loc);
        b(api, loc);
        if (t.buf_ != bid_)
            asc_sim::fail("free-foreign", api, loc, asc_sim::fmt("%s of a tensor that does not belong to this TBuf", api));
    }
    template <typename T> LocalTensor<T> make(uint32_t addr, uint32_t size) {
        LocalTensor<T> t;
        t.sp_ = asc_sim::S().bufs[bid_].space;
        t.addr_ = addr;
        t.size_ = size;
        t.buf_ = bid_;
        t.gen_ = asc_sim::S().bufs[bid_].gen;
        t.pos_ = pos;
        return t;
    }
};

// ---------------------------------------------------------------- TPipe
class TPipe {
public:
    explicit TPipe(ASC_LOC_PARAM);
    TPipe(const TPipe&) = delete;
    TPipe& operator=(const TPipe&) = delete;
    ~TPipe() noexcept(false);
    void Init() {}
    void Reset() {}
    void Destroy() {
        if (!asc_sim::S().aborting && !destroyed_) check_freed(loc_);
        destroyed_ = true;
    }

    template <class Q> bool InitBuffer(Q& que, uint8_t num, uint32_t len, ASC_LOC_PARAM) {
        const char* api = "TPipe::InitBuffer";
        asc_sim::enter(api, asc_loc_);
        asc_sim::State& s = asc_sim::S();
        constexpr TPosition pos = Q::srcPosition;
        int pi = static_cast<int>(pos);
        if (num == 0 || len == 0)
            asc_sim::fail("initbuffer-args", api, asc_loc_,
                          asc_sim::fmt("InitBuffer(TQue<%s>, num=%u, len=%u): num and len must be positive",
                                       PositionName(pos), num, len));
        if (s.pos_buffers[pi] + num > s.cfg.max_buf_per_pos)
            asc_sim::fail("buffers-per-position", api, asc_loc_,
                          asc_sim::fmt("InitBuffer(TQue<%s>, num=%u, len=%u): %d buffers would be live on position "
                                       "%s; at most %d per position on %s (one hardware event ID each)",
                                       PositionName(pos), num, len, s.pos_buffers[pi] + num, PositionName(pos),
                                       s.cfg.max_buf_per_pos, s.cfg.chip.c_str()));
        s.pos_buffers[pi] += num;
        s.queues.emplace_back();
        int qid = static_cast<int>(s.queues.size()) - 1;
        asc_sim::QueueState& qs = s.queues[qid];
        qs.pos = pi;
        qs.depth = Q::depthValue;
        qs.num = num;
        qs.init_loc = asc_loc_;
        qs.inited = true;
        uint32_t alen = (len + 31u) / 32u * 32u;
        qs.len = alen;
        for (int i = 0; i < num; ++i) {
            int b = alloc_space(api, asc_loc_, PositionSpace(pos), pos, alen, num, len);
            s.bufs[b].queue = qid;
            s.queues[qid].slots.push_back(b);
        }
        que.qid_ = qid;
        return true;
    }
    template <TPosition pos> bool InitBuffer(TBuf<pos>& buf, uint32_t len, ASC_LOC_PARAM) {
        const char* api = "TPipe::InitBuffer";
        asc_sim::enter(api, asc_loc_);
        if (len == 0)
            asc_sim::fail("initbuffer-args", api, asc_loc_, "InitBuffer(TBuf, len=0): len must be positive");
        uint32_t alen = (len + 31u) / 32u * 32u;
        int b = alloc_space(api, asc_loc_, PositionSpace(pos), pos, alen, 1, len);
        asc_sim::S().bufs[b].state = asc_sim::BUF_TBUF;
        asc_sim::S().bufs[b].alloc_loc = asc_loc_;
        buf.bid_ = b;
        return true;
    }
    template <HardEvent evt> TEventID AllocEventID() { return static_cast<TEventID>(next_event_[static_cast<int>(evt)]++ % 6); }
    template <HardEvent evt> void ReleaseEventID(TEventID) {}
    template <HardEvent evt> TEventID FetchEventID() { return 0; }
    TEventID FetchEventID(HardEvent) { return 0; }
    // Matmul and other libraries reserve UB through the pipe; the simulator only tracks it.
    asc_sim::Loc loc_{"", 0};

private:
    bool destroyed_ = false;
    int next_event_[64] = {0};

    int alloc_space(const char* api, const asc_sim::Loc& loc, int sp, TPosition pos, uint32_t alen, int num,
                    uint32_t len);
    void check_freed(const asc_sim::Loc& loc);
};

}  // namespace AscendC

// Global, as in asc-devkit include/basic_api/kernel_common.h (kernels outside namespace AscendC call it
// unqualified), and also reachable as AscendC::GetTPipePtr.
inline AscendC::TPipe* GetTPipePtr() { return static_cast<AscendC::TPipe*>(asc_sim::S().cur_pipe); }
namespace AscendC {
using ::GetTPipePtr;
}  // namespace AscendC
