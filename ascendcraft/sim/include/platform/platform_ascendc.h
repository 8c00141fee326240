// ascendcraft AscendC CPU simulator: host-side platform queries (platform_ascendc::PlatformAscendC).
//
// The answers come from the fe::PlatFormInfos the PlatformAscendC is made with (a TilingContext's
// GetPlatformInfo(), or PlatformAscendCManager's), which the host harness fills from the run's chip
// profile (docs/simulator.md, "CANN projects"); host code of a kernel build is compiled, never run, and
// sees the default 910B2 profile. The logic follows asc-devkit impl/utils/tiling/platform/platform_ascendc.cpp
// (core counts by core_type_list, GetLibApiWorkSpaceSize by NPU arch: 16 MiB on 2201, else 2 MiB) and the
// PlatformAscendC docs (平台信息获取/PlatformAscendC/*.md). One difference: CANN takes 256 bytes off UB and
// L1 on 910B for the Matmul API's AIC/AIV messages (LOCAL_RESERV_SIZE); the simulator's UB check allows
// the whole UB, so GetCoreMemSize reports all of it.
#pragma once
#include <cstdint>
#include <csignal>
#include <string>
#include "../asc_sim/host/platform.h"

#ifndef ASCENDC_ASSERT
#define ASCENDC_ASSERT(cond, behavior)                                                                                \
    do {                                                                                                              \
        if (!(cond)) {                                                                                                \
            behavior;                                                                                                 \
            raise(SIGABRT);                                                                                           \
        }                                                                                                             \
    } while (0)
#endif

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
    uint32_t GetCoreNum() const { return Info()->GetCoreNum(); }
    uint32_t GetCoreNumAic() const { return Info()->GetCoreNumByType(false); }
    uint32_t GetCoreNumAiv() const { return Info()->GetCoreNumByType(true); }
    // independent vector cores: 310P only (GetCoreNumVector.md)
    uint32_t GetCoreNumVector() const {
        return GetSocVersion() == SocVersion::ASCEND310P ? Num("SoCInfo", "vector_core_cnt") : 0;
    }
    uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        if (aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum) return sliceNum;
        uint32_t ration = aivCoreNum / aicCoreNum;
        return ration == 0 ? sliceNum : (sliceNum + ration - 1) / ration;
    }
    uint32_t CalcTschNumBlocks(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        return CalcTschBlockDim(sliceNum, aicCoreNum, aivCoreNum);
    }
    uint32_t GetLibApiWorkSpaceSize() const {
        uint32_t arch = Num("version", "NpuArch");
        return arch == 2201 || arch == 3510 ? 16u * 1024u * 1024u : 2u * 1024u * 1024u;
    }
    uint32_t GetResCubeGroupWorkSpaceSize() const {
        return GetSocVersion() == SocVersion::ASCEND910B ? 1u * 1024u * 1024u : static_cast<uint32_t>(-1);
    }
    uint32_t GetResGroupBarrierWorkSpaceSize() const {
        return GetSocVersion() == SocVersion::ASCEND910B ? 1u * 1024u * 1024u : static_cast<uint32_t>(-1);
    }
    void GetCoreMemSize(const CoreMemType& memType, uint64_t& size) const {
        size = 0;
        if (memType == CoreMemType::FB) size = Num("AICoreSpec", "fb0_size");
        else if (memType == CoreMemType::BT) size = Num("AICoreSpec", "bt_size");
        else if (memType < CoreMemType::FB) Info()->GetLocalMemSize(static_cast<fe::LocalMemType>(memType), size);
        if (memType == CoreMemType::UB) size = size > reservedMemSize_ ? size - reservedMemSize_ : 0;
    }
    void GetCoreMemBw(const CoreMemType& memType, uint64_t& bwSize) const {
        bwSize = 0;
        if (memType < CoreMemType::FB) Info()->GetLocalMemBw(static_cast<fe::LocalMemType>(memType), bwSize);
    }
    void ReserveLocalMemory(ReservedSize size) {
        reservedMemSize_ = size == ReservedSize::RESERVED_SIZE_8K ? 8u * 1024u
                           : size == ReservedSize::RESERVED_SIZE_16K ? 16u * 1024u : 32u * 1024u;
    }
    SocVersion GetSocVersion() const {
        std::string v;
        if (!Info()->GetPlatformResWithLock("version", "Short_SoC_version", v)) return SocVersion::RESERVED_VERSION;
        if (v == "Ascend910B" || v == "Ascend910_93") return SocVersion::ASCEND910B;  // platform_ascendc.h: one enum
        if (v == "Ascend910") return SocVersion::ASCEND910;
        if (v == "Ascend310P") return SocVersion::ASCEND310P;
        if (v == "Ascend310B") return SocVersion::ASCEND310B;
        return SocVersion::RESERVED_VERSION;
    }
    fe::PlatFormInfos* GetPlatFormInfo() const { return Info(); }

private:
    fe::PlatFormInfos* Info() const { return platformInfo_ ? platformInfo_ : &asc_sim_host::platform(); }
    uint32_t Num(const char* label, const char* key) const {
        std::string v;
        return Info()->GetPlatformResWithLock(label, key, v) ? static_cast<uint32_t>(std::strtoul(v.c_str(), nullptr, 10))
                                                             : 0;
    }
    fe::PlatFormInfos* platformInfo_;
    uint64_t reservedMemSize_ = 0;
};

class PlatformAscendCManager {
public:
    static PlatformAscendC* GetInstance() { return instance(); }
    static PlatformAscendC* GetInstance(const char* /*customSocVersion*/) { return instance(); }

private:
    static PlatformAscendC* instance() {
        static PlatformAscendC p(&asc_sim_host::platform());
        return &p;
    }
};
}  // namespace platform_ascendc
