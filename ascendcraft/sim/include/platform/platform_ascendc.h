// ascendcraft AscendC CPU simulator: host-side platform queries (platform_ascendc::PlatformAscendC).
//
// Host code of a foreign kernel source is compiled but never run by the simulator (see
// docs/simulator.md, "Foreign kernels"); these answers are those of the Atlas A2 910B2 profile
// (24 AIC, 48 AIV, UB 192 KiB, L1 512 KiB, L0A/B 64 KiB, L0C 128 KiB, 16 MiB system workspace),
// so a tiling function that is called from host code gets plausible numbers.
#pragma once
#include <cstdint>
#include <csignal>

#ifndef ASCENDC_ASSERT
#define ASCENDC_ASSERT(cond, behavior)                                                                                \
    do {                                                                                                              \
        if (!(cond)) {                                                                                                \
            behavior;                                                                                                 \
            raise(SIGABRT);                                                                                           \
        }                                                                                                             \
    } while (0)
#endif

namespace fe {
class PlatFormInfos;
}

namespace platform_ascendc {
enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };
enum class SocVersion {
    ASCEND910 = 0, ASCEND910B, ASCEND310P, ASCEND310B, ASCEND910_95, ASCEND910_55, AS31XM1, ASCEND031, ASCEND035,
    ASCEND310, ASCEND610, ASCEND610Lite, ASCEND910_93, BS9SX1A, BS9SX2A, HI3796CV300CS, HI3796CV300ES, MC61AM21A,
    MC62CM12A, SD3403, RESERVED_VERSION = 99999
};
enum class ReservedSize { RESERVED_SIZE_8K, RESERVED_SIZE_16K, RESERVED_SIZE_32K };

class PlatformAscendC {
public:
    PlatformAscendC() = delete;
    ~PlatformAscendC() = default;
    explicit PlatformAscendC(fe::PlatFormInfos* platformInfo) : platformInfo_(platformInfo) {}
    uint32_t GetCoreNum() const { return 24; }  // AIC count on the split (MIX) architecture
    uint32_t GetCoreNumAic() const { return 24; }
    uint32_t GetCoreNumAiv() const { return 48; }
    uint32_t GetCoreNumVector() const { return 0; }
    uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        if (aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum) return sliceNum;
        uint32_t ration = aivCoreNum / aicCoreNum;
        return ration == 0 ? sliceNum : (sliceNum + ration - 1) / ration;
    }
    uint32_t GetLibApiWorkSpaceSize() const { return 16u * 1024u * 1024u; }
    uint32_t GetResCubeGroupWorkSpaceSize() const { return 0; }
    uint32_t GetResGroupBarrierWorkSpaceSize() const { return 0; }
    void GetCoreMemSize(const CoreMemType& memType, uint64_t& size) const {
        switch (memType) {
            case CoreMemType::L0_A: case CoreMemType::L0_B: size = 64u * 1024u; break;
            case CoreMemType::L0_C: size = 128u * 1024u; break;
            case CoreMemType::L1: size = 512u * 1024u; break;
            case CoreMemType::L2: size = 192ull * 1024u * 1024u; break;
            case CoreMemType::UB: size = 192u * 1024u - reservedMemSize_; break;
            case CoreMemType::HBM: size = 64ull * 1024u * 1024u * 1024u; break;
            case CoreMemType::FB: size = 2u * 1024u; break;
            case CoreMemType::BT: size = 1024u; break;
            default: size = 0; break;
        }
    }
    void GetCoreMemBw(const CoreMemType& memType, uint64_t& bwSize) const {
        bwSize = memType == CoreMemType::HBM ? 32 : memType == CoreMemType::L2 ? 110 : 0;  // bytes/cycle (ini)
    }
    void ReserveLocalMemory(ReservedSize size) {
        reservedMemSize_ = size == ReservedSize::RESERVED_SIZE_8K ? 8u * 1024u
                           : size == ReservedSize::RESERVED_SIZE_16K ? 16u * 1024u : 32u * 1024u;
    }
    SocVersion GetSocVersion() const { return SocVersion::ASCEND910B; }
    fe::PlatFormInfos* GetPlatFormInfo() const { return platformInfo_; }

private:
    fe::PlatFormInfos* platformInfo_;
    uint32_t reservedMemSize_ = 0;
};

class PlatformAscendCManager {
public:
    static PlatformAscendC* GetInstance() { return instance(); }
    static PlatformAscendC* GetInstance(const char* /*customSocVersion*/) { return instance(); }

private:
    static PlatformAscendC* instance() {
        static PlatformAscendC p(nullptr);
        return &p;
    }
};
}  // namespace platform_ascendc
