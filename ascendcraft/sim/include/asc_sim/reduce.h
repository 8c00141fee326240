// ascendcraft AscendC CPU simulator: reductions (ReduceSum/Max/Min, WholeReduce*, BlockReduce*),
// Brcb (each element fills a 32-byte block) and Gather (byte offsets into a source tensor).
#pragma once
#include "vec.h"
#include "consts.h"

namespace asc_sim {
template <typename T> inline void set_max_min_cnt(T value, uint64_t index) {
    uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    S().max_min_cnt = (index << 32) | bits;
}
}  // namespace asc_sim

namespace AscendC {

// GetReduceMaxMinCount (CANN 8.x name; GetReduceRepeatMaxMinSpr.md, dav_c220
// kernel_operator_vec_reduce_impl.h): the extreme value of the last WholeReduceMax/Min over all its
// repeats, and its index, stored in T's bits as the register holds it (read the index through
// reinterpret_cast to uint16_t/uint32_t). A scalar read of a special register.
template <typename T> inline void GetReduceMaxMinCount(T& maxMinValue, T& maxMinIndex, ASC_LOC_PARAM) {
    asc_sim::enter("GetReduceMaxMinCount", asc_loc_);
    asc_sim::check_dtype<T>("GetReduceMaxMinCount", asc_loc_, asc_sim::DT_FLOAT);
    asc_sim::schedule_scalar(asc_sim::S().cfg.scalar_ub_cycles, -1, 0, 0, false, false);
    const uint64_t reg = asc_sim::S().max_min_cnt;
    const uint32_t value = static_cast<uint32_t>(reg & (sizeof(T) == 2 ? 0xffffu : 0xffffffffu));
    const uint32_t index = static_cast<uint32_t>(reg >> 32);
    std::memcpy(&maxMinValue, &value, sizeof(T));
    std::memcpy(&maxMinIndex, &index, sizeof(T));
}

// ---- ReduceSum / ReduceMax / ReduceMin (count form, with the shared work buffer)
template <typename T>
inline void asc_reduce_impl(const char* api, const asc_sim::Loc& loc, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                            const LocalTensor<T>& tmp, int32_t count, int kind, bool calIndex) {
    asc_sim::enter(api, loc);
    asc_sim::level2_epilogue();
    asc_sim::check_dtype<T>(api, loc, asc_sim::DT_FLOAT);
    const int64_t epr = 256 / sizeof(T), epb = 32 / sizeof(T);
    if (count < 1 || static_cast<uint64_t>(count) > asc_sim::S().cfg.ub_bytes / sizeof(T))
        asc_sim::fail("param-range", api, loc, asc_sim::fmt("%s: count=%d outside [1, UB size / sizeof(T)]", api, count));
    int64_t first_rep = (count + epr - 1) / epr;
    int64_t need = (first_rep + epb - 1) / epb * epb;
    asc_sim::use_local(api, loc, "src", src, count, false);
    asc_sim::use_local(api, loc, "dst", dst, calIndex ? 2 : 1, true, sizeof(T));
    if (tmp.GetSize() < static_cast<uint64_t>(need))
        asc_sim::fail("reduce-workspace", api, loc,
                      asc_sim::fmt("%s(count=%d): sharedTmpBuffer holds %u elements but needs at least %lld "
                                   "(ceil(ceil(count/%lld)/%lld)*%lld)", api, count, tmp.GetSize(),
                                   static_cast<long long>(need), static_cast<long long>(epr),
                                   static_cast<long long>(epb), static_cast<long long>(epb)));
    asc_sim::use_local(api, loc, "sharedTmpBuffer", tmp, need, true);
    // first pass over all repeats, then log-steps over the partials
    double cyc = asc_sim::vec_cycles(count * sizeof(T), 1);
    int64_t parts = first_rep;
    while (parts > 1) {
        cyc += asc_sim::vec_cycles(parts * sizeof(T), 1);
        parts = (parts + epr - 1) / epr;
    }
    asc_sim::Deps d;
    d.rd[0] = src.buf_;
    d.wr[0] = dst.buf_;
    d.wr[1] = tmp.buf_;
    asc_sim::schedule(asc_sim::Pipe::V, cyc, d);
    asc_sim::S().stats.vec_elems += count;
    if (asc_sim::S().cfg.cost_only) return;
    const T* x = src.ptr();
    float result = 0;
    int64_t idx = 0;
    if (kind == 0) {  // per-repeat binary tree, then sum of partials
        std::vector<float> part;
        for (int64_t r = 0; r < first_rep; ++r) {
            int64_t n = std::min<int64_t>(epr, count - r * epr);
            std::vector<float> v(static_cast<size_t>(n));
            for (int64_t i = 0; i < n; ++i) v[i] = asc_sim::fv(x[r * epr + i]);
            while (v.size() > 1) {
                std::vector<float> w((v.size() + 1) / 2);
                for (size_t i = 0; i < w.size(); ++i) w[i] = v[2 * i] + (2 * i + 1 < v.size() ? v[2 * i + 1] : 0.0f);
                v.swap(w);
            }
            part.push_back(static_cast<float>(T(v[0])));
        }
        for (float p : part) result += p;
    } else {
        result = asc_sim::fv(x[0]);
        for (int32_t i = 1; i < count; ++i) {
            float v = asc_sim::fv(x[i]);
            if ((kind == 1 && v > result) || (kind == 2 && v < result)) {
                result = v;
                idx = i;
            }
        }
    }
    dst.ptr()[0] = static_cast<T>(result);
    if (kind != 0) asc_sim::set_max_min_cnt(static_cast<T>(result), static_cast<uint64_t>(idx));
    if (calIndex) {
        if (sizeof(T) == 4) {
            uint32_t bits = static_cast<uint32_t>(idx);
            std::memcpy(&dst.ptr()[1], &bits, 4);
        } else {
            uint16_t bits = static_cast<uint16_t>(idx);
            std::memcpy(&dst.ptr()[1], &bits, 2);
        }
    }
    asc_sim::wrote(dst, calIndex ? 2 : 1);
    asc_sim::mark_written(tmp.sp_, tmp.addr_, need * sizeof(T));
}
template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count, ASC_LOC_PARAM) {
    asc_reduce_impl("ReduceSum", asc_loc_, dst, src, sharedTmpBuffer, count, 0, false);
}
template <typename T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count, bool calIndex = 0, ASC_LOC_PARAM) {
    asc_reduce_impl("ReduceMax", asc_loc_, dst, src, sharedTmpBuffer, count, 1, calIndex);
}
template <typename T>
inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count, bool calIndex = 0, ASC_LOC_PARAM) {
    asc_reduce_impl("ReduceMin", asc_loc_, dst, src, sharedTmpBuffer, count, 2, calIndex);
}

// The prologue of the level-0 reductions: the call entered, its dtype and repeat count checked; the
// repeats its mask runs (0: nothing to do).
template <typename T>
inline uint32_t l0_reduce_repeats(const char* api, const asc_sim::Loc& loc, const asc_sim::L0Mask& m, int32_t repeatTime) {
    asc_sim::enter(api, loc);
    asc_sim::check_dtype<T>(api, loc, asc_sim::DT_FLOAT);
    if (repeatTime < 0 || repeatTime > 255)
        asc_sim::fail("param-range", api, loc, asc_sim::fmt("%s: repeatTime=%d outside [0, 255]", api, repeatTime));
    return asc_sim::l0_repeats<T>(m, static_cast<uint32_t>(repeatTime));
}

#define ASC_SIM_REDUCE_COMMA ,
// ---- ReduceSum / ReduceMax / ReduceMin, the level-0 forms: every active lane of every repeat (blocks
// contiguous, repeats srcRepStride blocks apart) to one value (and, for max/min, the index of its lane
// in src); the work tensor holds the per-repeat partials.
template <typename T>
inline void asc_reduce_l0(const char* api, const asc_sim::Loc& loc, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                          const LocalTensor<T>& work, const asc_sim::L0Mask& m, int32_t repeatTime, int32_t srcRepStride,
                          int kind, bool calIndex) {
    const uint32_t reps = l0_reduce_repeats<T>(api, loc, m, repeatTime);
    if (reps == 0) return;
    asc_sim::use_local(api, loc, "src", src, asc_sim::l0_extent<T>(m, repeatTime, 1, srcRepStride), false, 32, false);
    asc_sim::use_local(api, loc, "dst", dst, calIndex ? 2 : 1, true, sizeof(T));
    asc_sim::use_local(api, loc, "workLocal", work, std::min<uint64_t>(reps, work.GetSize()), true);
    asc_sim::l0_check_read(api, loc, "src", src, m, repeatTime, 1, srcRepStride);
    double cyc = asc_sim::vec_cycles(reps * 256ull, 1);
    for (uint64_t parts = reps; parts > 1; parts = (parts + 255 / sizeof(T)) / (256 / sizeof(T)))
        cyc += asc_sim::vec_cycles(parts * sizeof(T), 1);
    asc_sim::Deps d;
    d.rd[0] = src.buf_;
    d.wr[0] = dst.buf_;
    d.wr[1] = work.buf_;
    asc_sim::schedule(asc_sim::Pipe::V, cyc, d);
    asc_sim::S().stats.vec_elems += reps * (256 / sizeof(T));
    if (asc_sim::S().cfg.cost_only) return;
    float result = 0;
    int64_t idx = -1;
    asc_sim::l0_for_each<T>(m, repeatTime, [&](uint32_t r, uint32_t j) {
        const uint64_t si = asc_sim::l0_index<T>(r, j, 1, srcRepStride);
        const float v = asc_sim::fv(src.ptr()[si]);
        if (kind == 0) result += v;
        else if (idx < 0 || (kind == 1 && v > result) || (kind == 2 && v < result)) {
            result = v;
            idx = static_cast<int64_t>(si);
        }
    });
    dst.ptr()[0] = static_cast<T>(result);
    if (kind != 0 && idx >= 0) asc_sim::set_max_min_cnt(static_cast<T>(result), static_cast<uint64_t>(idx));
    if (calIndex) {
        const uint32_t bits = static_cast<uint32_t>(std::max<int64_t>(idx, 0));
        if (sizeof(T) == 4) std::memcpy(&dst.ptr()[1], &bits, 4);
        else { const uint16_t b16 = static_cast<uint16_t>(bits); std::memcpy(&dst.ptr()[1], &b16, 2); }
    }
    asc_sim::wrote(dst, calIndex ? 2 : 1);
}
#define ASC_SIM_REDUCE_L0(NAME, KIND, INDEX_PARAM, INDEX_ARG)                                                         \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& workLocal,           \
                     const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride INDEX_PARAM,         \
                     ASC_LOC_PARAM) {                                                                                 \
        asc_reduce_l0(#NAME, asc_loc_, dst, src, workLocal, asc_sim::l0_mask<T>(isSetMask, mask, 0, false),           \
                      repeatTime, srcRepStride, KIND, INDEX_ARG);                                                     \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& workLocal,           \
                     const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride INDEX_PARAM,            \
                     ASC_LOC_PARAM) {                                                                                 \
        asc_reduce_l0(#NAME, asc_loc_, dst, src, workLocal,                                                           \
                      asc_sim::l0_mask<T>(isSetMask, nullptr, static_cast<uint64_t>(mask), true), repeatTime,         \
                      srcRepStride, KIND, INDEX_ARG);                                                                 \
    }
ASC_SIM_REDUCE_L0(ReduceSum, 0, , false)
ASC_SIM_REDUCE_L0(ReduceMax, 1, ASC_SIM_REDUCE_COMMA bool calIndex = 0, calIndex)
ASC_SIM_REDUCE_L0(ReduceMin, 2, ASC_SIM_REDUCE_COMMA bool calIndex = 0, calIndex)
#undef ASC_SIM_REDUCE_L0

// ---- WholeReduce*: one result per repeat (CANN 8.x names)
template <typename T>
inline void asc_whole_reduce(const char* api, const asc_sim::Loc& loc, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                             const asc_sim::L0Mask& m, int32_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride,
                             int32_t srcRepStride, int kind, ReduceOrder order) {
    const uint32_t reps = l0_reduce_repeats<T>(api, loc, m, repeatTime);
    if (reps == 0) return;
    const int outLen = (kind == 0 || order == ReduceOrder::ORDER_ONLY_VALUE || order == ReduceOrder::ORDER_ONLY_INDEX) ? 1 : 2;
    uint64_t dst_ext = static_cast<uint64_t>(reps - 1) * dstRepStride * outLen + outLen;
    asc_sim::use_local(api, loc, "src", src, asc_sim::l0_extent<T>(m, repeatTime, srcBlkStride, srcRepStride), false, 32, false);
    asc_sim::use_local(api, loc, "dst", dst, dst_ext, true, sizeof(T));
    asc_sim::l0_check_read(api, loc, "src", src, m, repeatTime, srcBlkStride, srcRepStride);
    asc_sim::vec_schedule(reps * 256ull, 1, src.buf_, -1, dst.buf_, reps * (256 / sizeof(T)));
    if (asc_sim::S().cfg.cost_only) return;
    std::vector<float> acc(reps, 0.0f);
    std::vector<int64_t> idx(reps, -1);
    asc_sim::l0_for_each<T>(m, repeatTime, [&](uint32_t r, uint32_t j) {
        float v = asc_sim::fv(src.ptr()[asc_sim::l0_index<T>(r, j, srcBlkStride, srcRepStride)]);
        if (kind == 0) acc[r] += v;
        else if (idx[r] < 0 || (kind == 1 && v > acc[r]) || (kind == 2 && v < acc[r])) {
            acc[r] = v;
            idx[r] = j;
        }
    });
    if (kind != 0) {   // the extreme over every repeat, first occurrence on ties, index over all elements
        uint32_t best = 0;
        for (uint32_t r = 1; r < reps; ++r)
            if (idx[r] >= 0 && (idx[best] < 0 || (kind == 1 ? acc[r] > acc[best] : acc[r] < acc[best]))) best = r;
        if (idx[best] >= 0)
            asc_sim::set_max_min_cnt(static_cast<T>(acc[best]),
                                     asc_sim::l0_index<T>(best, static_cast<uint32_t>(idx[best]), srcBlkStride, srcRepStride));
    }
    for (uint32_t r = 0; r < reps; ++r) {
        uint64_t o = static_cast<uint64_t>(r) * dstRepStride * outLen;
        T val = static_cast<T>(acc[r]);
        T ib;
        if (sizeof(T) == 4) { uint32_t b = static_cast<uint32_t>(std::max<int64_t>(idx[r], 0)); std::memcpy(&ib, &b, 4); }
        else { uint16_t b = static_cast<uint16_t>(std::max<int64_t>(idx[r], 0)); std::memcpy(&ib, &b, 2); }
        if (outLen == 1) dst.ptr()[o] = (order == ReduceOrder::ORDER_ONLY_INDEX && kind != 0) ? ib : val;
        else if (order == ReduceOrder::ORDER_INDEX_VALUE) { dst.ptr()[o] = ib; dst.ptr()[o + 1] = val; }
        else { dst.ptr()[o] = val; dst.ptr()[o + 1] = ib; }
        asc_sim::mark_written(dst.sp_, static_cast<uint32_t>(dst.addr_ + o * sizeof(T)), outLen * sizeof(T));
    }
}
#define ASC_SIM_WHOLE(NAME, KIND, EXTRA_PARAM, EXTRA_ARG)                                                             \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask, const int32_t repeatTime,\
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride EXTRA_PARAM,  \
                     ASC_LOC_PARAM) {                                                                                 \
        asc_whole_reduce(#NAME, asc_loc_, dst, src,                                                                   \
                         asc_sim::l0_mask<T>(isSetMask, nullptr, static_cast<uint64_t>(mask), true), repeatTime,      \
                         dstRepStride, srcBlkStride, srcRepStride, KIND, EXTRA_ARG);                                  \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],                     \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,                \
                     const int32_t srcRepStride EXTRA_PARAM, ASC_LOC_PARAM) {                                         \
        asc_whole_reduce(#NAME, asc_loc_, dst, src, asc_sim::l0_mask<T>(isSetMask, mask, 0, false), repeatTime,       \
                         dstRepStride, srcBlkStride, srcRepStride, KIND, EXTRA_ARG);                                  \
    }
// ---- PairReduceSum: adjacent lanes summed (a1 + a2, a3 + a4, ...): a repeat's results are half its
// lanes, at dst + repeat * dstRepStride * 128 bytes (PairReduceSum.md: the stride's unit is a reduced
// repeat). An output none of whose two lanes is active is not written.
template <typename T>
inline void asc_pair_reduce(const asc_sim::Loc& loc, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                            const asc_sim::L0Mask& m, int32_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride,
                            int32_t srcRepStride) {
    const char* api = "PairReduceSum";
    const uint32_t reps = l0_reduce_repeats<T>(api, loc, m, repeatTime);
    if (reps == 0) return;
    const uint64_t half = 128 / sizeof(T);
    asc_sim::use_local(api, loc, "src", src, asc_sim::l0_extent<T>(m, repeatTime, srcBlkStride, srcRepStride), false, 32, false);
    asc_sim::use_local(api, loc, "dst", dst, static_cast<uint64_t>(reps - 1) * dstRepStride * half + half, true);
    asc_sim::l0_check_read(api, loc, "src", src, m, repeatTime, srcBlkStride, srcRepStride);
    asc_sim::vec_schedule(reps * 256ull, 1, src.buf_, -1, dst.buf_, reps * (256 / sizeof(T)));
    if (asc_sim::S().cfg.cost_only) return;
    std::map<uint64_t, std::pair<float, bool>> out;   // dst element -> sum, holds a value
    asc_sim::l0_for_each<T>(m, repeatTime, [&](uint32_t r, uint32_t j) {
        const uint64_t si = asc_sim::l0_index<T>(r, j, srcBlkStride, srcRepStride);
        auto it = out.emplace(static_cast<uint64_t>(r) * dstRepStride * half + j / 2, std::make_pair(0.0f, true)).first;
        it->second.first += asc_sim::fv(src.ptr()[si]);
        it->second.second = it->second.second && !asc_sim::lane_garbage(src, si);
    });
    for (auto& [i, v] : out) {
        dst.ptr()[i] = static_cast<T>(v.first);
        asc_sim::mark_holds(dst.sp_, static_cast<uint32_t>(dst.addr_ + i * sizeof(T)), sizeof(T), v.second);
    }
}
template <typename T, bool isSetMask = true>
inline void PairReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                          const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,
                          const int32_t srcRepStride, ASC_LOC_PARAM) {
    asc_pair_reduce(asc_loc_, dst, src, asc_sim::l0_mask<T>(isSetMask, nullptr, static_cast<uint64_t>(mask), true),
                    repeatTime, dstRepStride, srcBlkStride, srcRepStride);
}
template <typename T, bool isSetMask = true>
inline void PairReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                          const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,
                          const int32_t srcRepStride, ASC_LOC_PARAM) {
    asc_pair_reduce(asc_loc_, dst, src, asc_sim::l0_mask<T>(isSetMask, mask, 0, false), repeatTime, dstRepStride,
                    srcBlkStride, srcRepStride);
}
#define ASC_SIM_COMMA ,
ASC_SIM_WHOLE(WholeReduceSum, 0, , ReduceOrder::ORDER_ONLY_VALUE)
ASC_SIM_WHOLE(WholeReduceMax, 1, ASC_SIM_COMMA ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, order)
ASC_SIM_WHOLE(WholeReduceMin, 2, ASC_SIM_COMMA ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, order)

// ---- BlockReduce*: one result per 32-byte block, 8 per repeat
template <typename T>
inline void asc_block_reduce(const char* api, const asc_sim::Loc& loc, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                             int32_t repeatTime, const asc_sim::L0Mask& m, int32_t dstRepStride, int32_t srcBlkStride,
                             int32_t srcRepStride, int kind) {
    asc_sim::enter(api, loc);
    asc_sim::check_dtype<T>(api, loc, asc_sim::DT_FLOAT);
    uint32_t reps = asc_sim::l0_repeats<T>(m, static_cast<uint32_t>(repeatTime));
    if (reps == 0) return;
    const uint32_t epb = 32 / sizeof(T);
    asc_sim::use_local(api, loc, "src", src, asc_sim::l0_extent<T>(m, repeatTime, srcBlkStride, srcRepStride), false, 32, false);
    asc_sim::use_local(api, loc, "dst", dst, static_cast<uint64_t>(reps - 1) * dstRepStride * 8 + 8, true, sizeof(T));
    asc_sim::l0_check_read(api, loc, "src", src, m, repeatTime, srcBlkStride, srcRepStride);
    asc_sim::vec_schedule(reps * 256ull, 1, src.buf_, -1, dst.buf_, reps * (256 / sizeof(T)));
    if (asc_sim::S().cfg.cost_only) return;
    std::vector<float> acc(reps * 8, 0.0f);
    std::vector<char> has(reps * 8, 0);
    asc_sim::l0_for_each<T>(m, repeatTime, [&](uint32_t r, uint32_t j) {
        float v = asc_sim::fv(src.ptr()[asc_sim::l0_index<T>(r, j, srcBlkStride, srcRepStride)]);
        size_t k = r * 8 + j / epb;
        if (!has[k]) { acc[k] = v; has[k] = 1; }
        else if (kind == 0) acc[k] += v;
        else if ((kind == 1 && v > acc[k]) || (kind == 2 && v < acc[k])) acc[k] = v;
    });
    for (uint32_t r = 0; r < reps; ++r)
        for (uint32_t b = 0; b < 8; ++b)
            if (has[r * 8 + b]) {
                uint64_t o = static_cast<uint64_t>(r) * dstRepStride * 8 + b;
                dst.ptr()[o] = static_cast<T>(acc[r * 8 + b]);
                asc_sim::mark_written(dst.sp_, static_cast<uint32_t>(dst.addr_ + o * sizeof(T)), sizeof(T));
            }
}
#define ASC_SIM_BLOCK(NAME, KIND)                                                                                     \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, const int32_t mask,\
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride, ASC_LOC_PARAM) {\
        asc_block_reduce(#NAME, asc_loc_, dst, src, repeatTime,                                                       \
                         asc_sim::l0_mask<T>(isSetMask, nullptr, static_cast<uint64_t>(mask), true), dstRepStride,    \
                         srcBlkStride, srcRepStride, KIND);                                                           \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,                  \
                     const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,                   \
                     const int32_t srcRepStride, ASC_LOC_PARAM) {                                                     \
        asc_block_reduce(#NAME, asc_loc_, dst, src, repeatTime, asc_sim::l0_mask<T>(isSetMask, mask, 0, false),       \
                         dstRepStride, srcBlkStride, srcRepStride, KIND);                                             \
    }
ASC_SIM_BLOCK(BlockReduceSum, 0)
ASC_SIM_BLOCK(BlockReduceMax, 1)
ASC_SIM_BLOCK(BlockReduceMin, 2)

// ---- Brcb: each of 8 source elements per repeat fills one 32-byte block
template <typename T>
inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint8_t repeatTime, const BrcbRepeatParams& p,
                 ASC_LOC_PARAM) {
    const char* api = "Brcb";
    asc_sim::enter(api, asc_loc_);
    asc_sim::check_dtype<T>(api, asc_loc_, asc_sim::DT_B16B32);
    if (repeatTime == 0) return;
    const uint32_t epb = 32 / sizeof(T);
    uint64_t dst_ext = (static_cast<uint64_t>(repeatTime - 1) * p.dstRepStride + 7ull * p.dstBlkStride) * epb + epb;
    asc_sim::use_local(api, asc_loc_, "src", src, repeatTime * 8ull, false);
    asc_sim::use_local(api, asc_loc_, "dst", dst, dst_ext, true);
    asc_sim::vec_schedule(repeatTime * 256ull, 1, src.buf_, -1, dst.buf_, repeatTime * 8ull * epb);
    if (asc_sim::S().cfg.cost_only) return;
    for (uint32_t r = 0; r < repeatTime; ++r)
        for (uint32_t b = 0; b < 8; ++b) {
            uint64_t o = (static_cast<uint64_t>(r) * p.dstRepStride + static_cast<uint64_t>(b) * p.dstBlkStride) * epb;
            T v = src.ptr()[r * 8 + b];
            for (uint32_t k = 0; k < epb; ++k) dst.ptr()[o + k] = v;
            asc_sim::mark_written(dst.sp_, static_cast<uint32_t>(dst.addr_ + o * sizeof(T)), 32);
        }
}

// ---- GatherMask (GatherMask.md, kernel_struct_gather.h): the src0 elements whose mask bit is 1, packed
// into dst; rsvdCnt = how many. The mask is a fixed pattern 1..7 (even, odd, the 1st/2nd/3rd/4th of
// every four, all) or a user tensor consumed bit by bit within a repeat, src1RepeatStride blocks
// further per repeat. reduceMode false: repeatTimes repeats of 256 bytes; true (counter mode, A2's
// "configuration one"): repeatTimes repeats of `mask` elements each.
enum class GatherMaskMode : uint8_t { VERSION_V1 = 0, VERSION_V2 = 1 };
const GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V2;
const GatherMaskMode defaultGahterMaskMode = GatherMaskMode::VERSION_V2;  // sic: the public spelling too
struct GatherMaskParams {
    GatherMaskParams() {}
    GatherMaskParams(const uint8_t src0BlockStrideIn, const uint16_t repeatTimesIn, const uint16_t src0RepeatStrideIn,
                     const uint8_t src1RepeatStrideIn)
        : src0BlockStride(src0BlockStrideIn), repeatTimes(repeatTimesIn), src0RepeatStride(src0RepeatStrideIn),
          src1RepeatStride(src1RepeatStrideIn) {}
    uint8_t src0BlockStride = DEFAULT_BLK_STRIDE;
    uint16_t repeatTimes = 0;
    uint16_t src0RepeatStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepeatStride = DEFAULT_REPEAT_STRIDE;
};
template <typename T, typename U>
inline void asc_gather_mask(const asc_sim::Loc& loc, const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                            const LocalTensor<U>* pattern, uint8_t fixed, bool reduceMode, uint32_t mask,
                            const GatherMaskParams& p, uint64_t& rsvdCnt) {
    const char* api = "GatherMask";
    asc_sim::enter(api, loc);
    asc_sim::check_dtype<T>(api, loc, asc_sim::DT_F16 | asc_sim::DT_BF16 | asc_sim::DT_I16 | asc_sim::DT_U16 |
                                          asc_sim::DT_F32 | asc_sim::DT_I32 | asc_sim::DT_U32);
    if (pattern && sizeof(U) != sizeof(T))
        asc_sim::fail("dtype", api, loc, asc_sim::fmt("GatherMask: a %s pattern for %s data; the pattern's type must be "
                                                      "the unsigned integer of the data's size", asc_sim::type_name<U>(),
                                                      asc_sim::type_name<T>()));
    if (!pattern && (fixed < 1 || fixed > 7))
        asc_sim::fail("param-range", api, loc, asc_sim::fmt("GatherMask: src1Pattern %u outside [1, 7]", fixed));
    if (reduceMode && mask == 0)
        asc_sim::fail("param-range", api, loc, "GatherMask: mask 0 in counter mode (reduceMode true); range [1, 2^32-1]");
    const uint32_t epb = 32 / sizeof(T), per = reduceMode ? mask : 256 / sizeof(T), reps = p.repeatTimes;
    rsvdCnt = 0;
    if (reps == 0) return;
    auto src_index = [&](uint32_t r, uint32_t j) {
        return static_cast<uint64_t>(r) * p.src0RepeatStride * epb + static_cast<uint64_t>(j / epb) * p.src0BlockStride * epb + j % epb;
    };
    auto bit_index = [&](uint32_t r, uint32_t j) { return static_cast<uint64_t>(r) * p.src1RepeatStride * 256 + j; };
    const uint64_t src_ext = src_index(reps - 1, per - 1) + 1;
    asc_sim::use_local(api, loc, "src0", src0, src_ext, false, 32, false);
    const uint64_t bits = pattern ? bit_index(reps - 1, per - 1) + 1 : 0;
    if (pattern) asc_sim::use_local(api, loc, "src1Pattern", *pattern, (bits + 8 * sizeof(U) - 1) / (8 * sizeof(U)), false);
    // dst gets at most every element: checked against what is selected below
    asc_sim::use_local(api, loc, "dst", dst, 0, true);
    const uint64_t blocks = (static_cast<uint64_t>(reps) * per * sizeof(T) + 255) / 256;
    asc_sim::vec_schedule(blocks * 256, 1, src0.buf_, pattern ? pattern->buf_ : -1, dst.buf_,
                          static_cast<uint64_t>(reps) * per);
    const uint8_t* pm = pattern ? reinterpret_cast<const uint8_t*>(pattern->ptr()) : nullptr;
    std::vector<T> out;
    for (uint32_t r = 0; r < reps; ++r)
        for (uint32_t j = 0; j < per; ++j) {
            bool take;
            if (pattern) {
                uint64_t b = bit_index(r, j);
                // cost-only: on-chip memory reads as zeros (docs/simulator.md), so nothing is selected
                take = !asc_sim::S().cfg.cost_only && ((pm[b / 8] >> (b % 8)) & 1u) != 0;
            } else {
                take = fixed == 7 || (fixed <= 2 ? j % 2 == static_cast<uint32_t>(fixed - 1) : j % 4 == static_cast<uint32_t>(fixed - 3));
            }
            if (!take) continue;
            uint64_t i = src_index(r, j);
            if (!asc_sim::S().cfg.cost_only) {
                asc_sim::check_written(api, loc, "src0", src0.sp_, static_cast<uint32_t>(src0.addr_ + i * sizeof(T)),
                                       sizeof(T), sizeof(T));
                out.push_back(src0.ptr()[i]);
            }
            ++rsvdCnt;
        }
    asc_sim::use_local(api, loc, "dst", dst, rsvdCnt, true);
    if (asc_sim::S().cfg.cost_only) return;
    std::memcpy(static_cast<void*>(dst.ptr()), out.data(), out.size() * sizeof(T));
    asc_sim::wrote(dst, out.size());
}
template <typename T, typename U, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>& src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                       uint64_t& rsvdCnt, ASC_LOC_PARAM) {
    asc_gather_mask(asc_loc_, dst, src0, &src1Pattern, 0, reduceMode, mask, gatherMaskParams, rsvdCnt);
}
template <typename T, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                       uint64_t& rsvdCnt, ASC_LOC_PARAM) {
    asc_gather_mask(asc_loc_, dst, src0, static_cast<const LocalTensor<uint16_t>*>(nullptr), src1Pattern, reduceMode,
                    mask, gatherMaskParams, rsvdCnt);
}

// ---- Gather: dst[i] = src[(srcBaseOffset + srcOffset[i]) / sizeof(T)], offsets in bytes
template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseOffset, const uint32_t count, ASC_LOC_PARAM) {
    const char* api = "Gather";
    asc_sim::enter(api, asc_loc_);
    asc_sim::check_dtype<T>(api, asc_loc_, asc_sim::DT_B16B32);
    asc_sim::level2_epilogue();
    if (count == 0) return;
    asc_sim::use_local(api, asc_loc_, "srcOffset", srcOffset, count, false);
    // the offsets are data: the whole source counts as read (its elements are checked one by one)
    asc_sim::use_local(api, asc_loc_, "src", src, src.GetSize(), false, 32, false);
    asc_sim::use_local(api, asc_loc_, "dst", dst, count, true);
    asc_sim::vec_schedule(count * sizeof(T), 1, src.buf_, srcOffset.buf_, dst.buf_, count);
    if (asc_sim::S().cfg.cost_only) return;
    std::vector<T> tmp(count);
    for (uint32_t i = 0; i < count; ++i) {
        uint64_t byte = static_cast<uint64_t>(srcBaseOffset) + srcOffset.ptr()[i];
        if (byte % sizeof(T) != 0 || byte / sizeof(T) >= src.GetSize())
            asc_sim::fail("gather-range", api, asc_loc_,
                          asc_sim::fmt("Gather: element %u reads byte offset %llu, outside the %u-element src tensor "
                                       "or not a multiple of sizeof(%s) (offsets are in bytes)", i,
                                       static_cast<unsigned long long>(byte), src.GetSize(), asc_sim::type_name<T>()));
        asc_sim::check_written(api, asc_loc_, "src", src.sp_, static_cast<uint32_t>(src.addr_ + byte), sizeof(T), sizeof(T));
        tmp[i] = src.ptr()[byte / sizeof(T)];
    }
    std::memcpy(static_cast<void*>(dst.ptr()), tmp.data(), count * sizeof(T));
    asc_sim::wrote(dst, count);
}

}  // namespace AscendC
