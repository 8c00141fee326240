// ascendcraft AscendC CPU simulator, host side: fe::PlatFormInfos (platform/platform_info.h), the
// platform a TilingContext hands out (GetPlatformInfo) and PlatformAscendC reads.
//
// Its numbers are resources by label and key, as CANN's platform_config/<SoC>.ini gives them
// ([SoCInfo] ai_core_cnt, cube_core_cnt, vector_core_cnt, core_type_list, l2_size, memory_size;
// [AICoreSpec] ub_size, l1_size, l0_a_size, l0_b_size, l0_c_size; [version] SoC_version,
// Short_SoC_version). The host harness fills them from the run's chip profile
// (ascendcraft/data/chips/<chip>.json, sim/host.py). Until then, and in host code compiled into a
// kernel build (never run), they are those of the default 910B2 profile.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>

namespace fe {
// platform_infos_def.h
enum class LocalMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, RESERVED };

class PlatFormInfos {
public:
    using Resources = std::map<std::string, std::map<std::string, std::string>>;
    PlatFormInfos() = default;
    explicit PlatFormInfos(Resources res) : res_(std::move(res)) {}

    bool Init() { return true; }
    bool GetPlatformRes(const std::string& label, const std::string& key, std::string& val) const {
        auto l = res_.find(label);
        if (l == res_.end()) return false;
        auto k = l->second.find(key);
        if (k == l->second.end()) return false;
        val = k->second;
        return true;
    }
    bool GetPlatformResWithLock(const std::string& label, const std::string& key, std::string& val) const {
        return GetPlatformRes(label, key, val);
    }
    bool GetPlatformRes(const std::string& label, std::map<std::string, std::string>& res) const {
        auto l = res_.find(label);
        if (l == res_.end()) return false;
        res = l->second;
        return true;
    }
    bool GetPlatformResWithLock(const std::string& label, std::map<std::string, std::string>& res) const {
        return GetPlatformRes(label, res);
    }
    void SetPlatformRes(const std::string& label, std::map<std::string, std::string>& res) { res_[label] = res; }
    void SetPlatformRes(const std::string& label, const std::string& key, const std::string& val) {
        res_[label][key] = val;
    }
    // On the split (cube/vector) architecture the vector cores, otherwise the AI cores (GetCoreNum-270.md:
    // "Atlas A2 ... 分离模式，返回Vector Core的核数").
    uint32_t GetCoreNum() const {
        return Num("SoCInfo", Split() ? "vector_core_cnt" : "ai_core_cnt");
    }
    uint32_t GetCoreNumWithLock() const { return GetCoreNum(); }
    uint32_t GetCoreNumByType(bool aiv) const {  // PlatformAscendC's GetCoreNumAic/Aiv (platform_ascendc.cpp)
        return Num("SoCInfo", !Split() ? "ai_core_cnt" : aiv ? "vector_core_cnt" : "cube_core_cnt");
    }
    void SetCoreNumByCoreType(const std::string&) {}
    void GetLocalMemSize(const LocalMemType& type, uint64_t& size) const {
        switch (type) {
            case LocalMemType::L0_A: size = Num64("AICoreSpec", "l0_a_size"); break;
            case LocalMemType::L0_B: size = Num64("AICoreSpec", "l0_b_size"); break;
            case LocalMemType::L0_C: size = Num64("AICoreSpec", "l0_c_size"); break;
            case LocalMemType::L1: size = Num64("AICoreSpec", "l1_size"); break;
            case LocalMemType::UB: size = Num64("AICoreSpec", "ub_size"); break;
            case LocalMemType::L2: size = Num64("SoCInfo", "l2_size"); break;
            case LocalMemType::HBM: size = Num64("SoCInfo", "memory_size"); break;
            default: size = 0; break;
        }
    }
    void GetLocalMemBw(const LocalMemType& type, uint64_t& bw) const {
        bw = type == LocalMemType::L2 ? Num64("AICoreMemoryRates", "l2_rate")
             : type == LocalMemType::HBM ? Num64("AICoreMemoryRates", "ddr_rate") : 0;
    }

private:
    bool Split() const {
        std::string v;
        return GetPlatformRes("SoCInfo", "core_type_list", v) && v == "CubeCore,VectorCore";
    }
    uint64_t Num64(const char* label, const char* key) const {
        std::string v;
        return GetPlatformRes(label, key, v) ? std::strtoull(v.c_str(), nullptr, 10) : 0;
    }
    uint32_t Num(const char* label, const char* key) const { return static_cast<uint32_t>(Num64(label, key)); }

    Resources res_;
};
}  // namespace fe

namespace asc_sim_host {
// The platform every context and PlatformAscendCManager hands out. The host harness replaces its
// resources with the run's chip before any op code runs.
inline fe::PlatFormInfos& platform() {
    static fe::PlatFormInfos p(fe::PlatFormInfos::Resources{
        {"SoCInfo", {{"ai_core_cnt", "24"}, {"cube_core_cnt", "24"}, {"vector_core_cnt", "48"},
                     {"core_type_list", "CubeCore,VectorCore"}, {"l2_size", "201326592"},
                     {"memory_size", "68719476736"}}},
        {"AICoreSpec", {{"ub_size", "196608"}, {"l1_size", "524288"}, {"l0_a_size", "65536"}, {"l0_b_size", "65536"},
                        {"l0_c_size", "131072"}, {"fb0_size", "2048"}, {"bt_size", "1024"}}},
        {"AICoreMemoryRates", {{"l2_rate", "110"}, {"ddr_rate", "32"}}},
        {"version", {{"SoC_version", "Ascend910B2"}, {"Short_SoC_version", "Ascend910B"}, {"NpuArch", "2201"}}},
    });
    return p;
}
}  // namespace asc_sim_host
