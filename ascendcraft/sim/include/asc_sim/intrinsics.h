// ascendcraft AscendC CPU simulator: the compiler intrinsics and older helpers CANN's own operators
// call beside the AscendC API (the RmsNorm and DeepNorm families: a whole-repeat sum with `vcadd`,
// its accumulating form read back with `get_acc_val`, the mask set with `set_vector_mask` or
// `AscendCUtils::SetMask`; the `block_idx`/`block_num` variables; InitOutput; PopStackBuffer). A `__ubuf__` pointer is a LocalTensor's GetPhyAddr(): its value is
// the UB address, which these functions map back to the buffer holding it, so the buffer's
// bounds, initialisation and sync checks apply as they do to the API's operands.
// Semantics: asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_reduce_impl.h (vcadd's last
// argument selects the accumulating form that ReduceSum reads through get_acc_val) and
// impl/basic_api/kernel_utils_base.h (AscendCUtils::SetMask).
#pragma once
#include "copy.h"
#include "reduce.h"
#include "consts.h"

namespace asc_sim {

// The UB tensor a raw intrinsic's pointer names: from that address to the end of the buffer holding
// it (or of UB, outside every buffer).
template <typename T> inline AscendC::LocalTensor<T> ubuf_tensor(const char* api, const Loc& loc, const T* p) {
    State& s = S();
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    const uint32_t cap = s.spaces[SP_UB].cap;
    if (a >= cap || a % sizeof(T) != 0)
        fail("invalid-tensor", api, loc,
             fmt("%s: the pointer 0x%llx is not a UB address (pass a LocalTensor's GetPhyAddr() cast to a __ubuf__ "
                 "pointer; UB holds %u bytes)", api, static_cast<unsigned long long>(a), cap));
    AscendC::LocalTensor<T> t;
    t.sp_ = SP_UB;
    t.addr_ = static_cast<uint32_t>(a);
    t.size_ = static_cast<uint32_t>((cap - a) / sizeof(T));
    for (size_t i = 0; i < s.bufs.size(); ++i) {
        const Buffer& b = s.bufs[i];
        if (b.space == SP_UB && a >= b.addr && a < static_cast<uintptr_t>(b.addr) + b.len) {
            t.buf_ = static_cast<int>(i);
            t.gen_ = b.gen;
            t.size_ = static_cast<uint32_t>((b.addr + b.len - a) / sizeof(T));
            break;
        }
    }
    return t;
}

// vcadd's accumulating form: the sum of every active lane of every repeat into the accumulator
// register (get_acc_val), dst untouched.
template <typename T>
inline void vcadd_accumulate(const Loc& loc, const AscendC::LocalTensor<T>& src, int32_t repeat, int32_t srcBlkStride,
                             int32_t srcRepStride) {
    const char* api = "vcadd";
    enter(api, loc);
    check_dtype<T>(api, loc, DT_FLOAT);
    const L0Mask m = l0_mask<T>(false, nullptr, 0, true);
    const uint32_t reps = l0_repeats<T>(m, static_cast<uint32_t>(repeat));
    if (reps == 0) return;
    use_local(api, loc, "src", src, l0_extent<T>(m, repeat, srcBlkStride, srcRepStride), false, 32, false);
    l0_check_read(api, loc, "src", src, m, repeat, srcBlkStride, srcRepStride);
    vec_schedule(reps * 256ull, 1, src.buf_, -1, -1, reps * (256 / sizeof(T)));
    if (S().cfg.cost_only) return;
    float sum = 0.0f;
    l0_for_each<T>(m, repeat, [&](uint32_t r, uint32_t j) { sum += fv(src.ptr()[l0_index<T>(r, j, srcBlkStride, srcRepStride)]); });
    const T v = static_cast<T>(sum);
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    S().acc_val = bits;
}

}  // namespace asc_sim

// vcadd(dst, src, repeat, dstRepStride, srcBlkStride, srcRepStride, accumulate): one sum per repeat
// under the current mask (WholeReduceSum with the mask already set), or, accumulating, one sum of
// them all into the accumulator register.
template <typename T>
inline void vcadd(T* dst, T* src, int64_t repeat, int64_t dstRepStride, int64_t srcBlkStride, int64_t srcRepStride,
                  bool accumulate, ASC_LOC_PARAM) {
    const AscendC::LocalTensor<T> s = asc_sim::ubuf_tensor("vcadd", asc_loc_, src);
    if (accumulate) {
        asc_sim::vcadd_accumulate(asc_loc_, s, static_cast<int32_t>(repeat), static_cast<int32_t>(srcBlkStride),
                                  static_cast<int32_t>(srcRepStride));
        return;
    }
    AscendC::asc_whole_reduce("vcadd", asc_loc_, asc_sim::ubuf_tensor("vcadd", asc_loc_, dst), s,
                              asc_sim::l0_mask<T>(false, nullptr, 0, true), static_cast<int32_t>(repeat),
                              static_cast<int32_t>(dstRepStride), static_cast<int32_t>(srcBlkStride),
                              static_cast<int32_t>(srcRepStride), 0, AscendC::ReduceOrder::ORDER_ONLY_VALUE);
}
template <typename T>
inline void vcadd(std::nullptr_t, T* src, int64_t repeat, int64_t dstRepStride, int64_t srcBlkStride,
                  int64_t srcRepStride, bool accumulate, ASC_LOC_PARAM) {
    if (!accumulate)
        asc_sim::fail("invalid-tensor", "vcadd", asc_loc_, "vcadd with a null dst writes nowhere: only its accumulating "
                                                           "form (last argument true) may pass nullptr");
    asc_sim::vcadd_accumulate(asc_loc_, asc_sim::ubuf_tensor("vcadd", asc_loc_, src), static_cast<int32_t>(repeat),
                              static_cast<int32_t>(srcBlkStride), static_cast<int32_t>(srcRepStride));
}
// The accumulator register (the last accumulating vcadd's sum in its type's bits, low bytes first). A
// scalar read of a special register.
inline int64_t get_acc_val(ASC_LOC_PARAM) {
    asc_sim::enter("get_acc_val", asc_loc_);
    asc_sim::schedule_scalar(asc_sim::S().cfg.scalar_ub_cycles, -1, 0, 0, false, false);
    return static_cast<int64_t>(asc_sim::S().acc_val);
}
inline void set_vector_mask(uint64_t maskHigh, uint64_t maskLow) {
    asc_sim::S().mask_hi = maskHigh;
    asc_sim::S().mask_lo = maskLow;
}
// the mask mode intrinsics behind SetMaskNorm / SetMaskCount
inline void set_mask_norm() { asc_sim::S().mask_counter = false; }
inline void set_mask_count() { asc_sim::S().mask_counter = true; }

namespace AscendC {
// GetAccVal<T>() reads the register as T; the untyped form earlier CANN versions declared in
// impl/dav_c220/kernel_operator_reg_others_impl.h returns its bits.
inline int64_t GetAccVal(ASC_LOC_PARAM) { return get_acc_val(asc_loc_); }
template <typename T> inline T GetAccVal(ASC_LOC_PARAM) {
    const int64_t v = get_acc_val(asc_loc_);
    T r;
    std::memcpy(&r, &v, sizeof(T));
    return r;
}
// AscendCUtils::SetMask (kernel_utils_base.h): the normal-mode mask of the first `len` lanes, with
// that header's two special cases kept: 64 lanes set the low word only, and `len` equal to a block's
// element count, or 128 and more, sets every lane.
struct AscendCUtils {
    static constexpr int32_t GetC0Size() { return 32; }
    static constexpr int32_t GetC0Count(int32_t dtypeSize) { return 32 / dtypeSize; }
    static constexpr int32_t GetBitSize(int32_t byteSize) { return byteSize * 8; }
    template <typename T, bool isSetMask = true> static inline void SetMask(const uint64_t& maskHigh, const uint64_t& maskLow) {
        if constexpr (isSetMask) set_vector_mask(maskHigh, maskLow);
    }
    template <typename T, bool isSetMask = true> static inline void SetMask(int32_t len) {
        if constexpr (!isSetMask) return;
        const int32_t block = static_cast<int32_t>(32 / sizeof(T));
        if (len == 64) return set_vector_mask(0, FULL_MASK);
        if (len == block || len >= 128) return set_vector_mask(FULL_MASK, FULL_MASK);
        set_vector_mask(len > 64 ? (1ull << (len - 64)) - 1 : 0, len > 64 ? FULL_MASK : (1ull << len) - 1);
    }
};
}  // namespace AscendC

namespace AscendC {
// InitOutput (kernel_operator_common_intf.h, deprecated for Fill): `size` elements of GM set to
// `value` by the vector unit and a copy out (charged as a copy of that many bytes).
template <typename T> inline void InitOutput(GlobalTensor<T> gm, uint32_t size, T value = 0, ASC_LOC_PARAM) {
    const char* api = "InitOutput";
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter(api, asc_loc_);
    const uint64_t bytes = static_cast<uint64_t>(size) * sizeof(T);
    if (bytes == 0) return;
    asc_sim::gm_check(api, asc_loc_, gm.addr_, bytes, "writes");
    asc_sim::schedule(asc_sim::Pipe::MTE3, s.cfg.mte_overhead + bytes / s.cfg.mte3_bpc, asc_sim::Deps{},
                      static_cast<double>(bytes));
    s.stats.gm_write += bytes;
    asc_sim::gm_wrote(gm.addr_, bytes, bytes, 1);
    if (s.cfg.cost_only) return;
    const std::vector<T> fill(size, value);
    asc_sim::gm_write_elems(gm.addr_, fill.data(), size);
}
// PopStackBuffer: the UB the pipe has not given to any buffer, from its end to the end of UB, as one
// tensor (the library APIs' scratch when the caller passes none). False when nothing is left.
template <typename T, TPosition pos> inline bool PopStackBuffer(LocalTensor<T>& t, ASC_LOC_PARAM) {
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter("PopStackBuffer", asc_loc_);
    const asc_sim::Space& ub = s.spaces[asc_sim::SP_UB];
    const uint32_t start = (ub.used + 31u) / 32u * 32u;
    if (start >= ub.cap) return false;
    t = LocalTensor<T>();
    t.sp_ = asc_sim::SP_UB;
    t.addr_ = start;
    t.size_ = (ub.cap - start) / sizeof(T);
    t.pos_ = pos;
    return true;
}
}  // namespace AscendC
