// Stub of CANN's tiling/platform/platform_ascendc.h (ascendc_api.md 5.2).
#pragma once
#include <cstdint>

namespace fe { class PlatFormInfos; }

namespace platform_ascendc {
class PlatformAscendC {
public:
    explicit PlatformAscendC(fe::PlatFormInfos* platformInfo);
    uint32_t GetCoreNumAiv() const;
    uint32_t GetCoreNumAic() const;
    uint32_t GetLibApiWorkSpaceSize() const;
};

class PlatformAscendCManager {
public:
    static PlatformAscendC* GetInstance();
};
}  // namespace platform_ascendc
