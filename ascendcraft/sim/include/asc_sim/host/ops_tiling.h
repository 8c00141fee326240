// ascendcraft AscendC CPU simulator, host side: the tiling framework of CANN's operator repositories
// (ops-nn / ops-transformer common headers "tiling/tiling_base.h", "tiling/tiling_templates_registry.h",
// "error/ops_error.h", "log/ops_log.h"): optiling::TilingBaseClass, whose DoTiling runs GetShapeAttrsInfo,
// GetPlatformInfo, IsCapable, DoOpTiling, DoLibApiTiling, GetWorkspaceSize, PostTiling and sets the tiling key,
// and TilingRegistry, which tries the classes REGISTER_TILING_TEMPLATE registered for an op, lowest priority
// number first, until one does not answer GRAPH_PARAM_INVALID. Ascendcraft's own code after those headers'
// documented behaviour; the logging macros print to stdout.
#pragma once
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <vector>
#include "context.h"
#include "../../tiling/platform/platform_ascendc.h"

#ifndef OPS_LOG_D
#define OPS_LOG_D(op, fmt, ...) (std::printf("[D] " fmt "\n", ##__VA_ARGS__))
#endif
#ifndef OPS_LOG_I
#define OPS_LOG_I(op, fmt, ...) (std::printf("[I] " fmt "\n", ##__VA_ARGS__))
#endif
#ifndef OPS_LOG_W
#define OPS_LOG_W(op, fmt, ...) (std::printf("[W] " fmt "\n", ##__VA_ARGS__))
#endif
#ifndef OPS_LOG_E
#define OPS_LOG_E(op, fmt, ...) (std::printf("[E] " fmt "\n", ##__VA_ARGS__))
#endif
#ifndef OPS_REPORT_VECTOR_INNER_ERR
#define OPS_REPORT_VECTOR_INNER_ERR(op, fmt, ...) (std::printf("[E] " fmt "\n", ##__VA_ARGS__))
#endif
#ifndef OPS_REPORT_CUBE_INNER_ERR
#define OPS_REPORT_CUBE_INNER_ERR(op, fmt, ...) (std::printf("[E] " fmt "\n", ##__VA_ARGS__))
#endif
#ifndef OPS_ERR_IF
#define OPS_ERR_IF(cond, log, expr)                                                                                   \
    do {                                                                                                              \
        if (cond) {                                                                                                   \
            log;                                                                                                      \
            expr;                                                                                                     \
        }                                                                                                             \
    } while (0)
#endif
#ifndef OPS_CHECK
#define OPS_CHECK(cond, log, expr) OPS_ERR_IF(cond, log, expr)
#endif
#ifndef ASCENDC_EXTERN_C
#ifdef ASCENDC_OP_TEST
#define ASCENDC_EXTERN_C extern "C"
#else
#define ASCENDC_EXTERN_C
#endif
#endif
#ifndef OPS_LOG_E_IF_NULL
#define OPS_LOG_E_IF_NULL(op, ptr, expr)                                                                              \
    do {                                                                                                              \
        if ((ptr) == nullptr) {                                                                                       \
            std::printf("[E] %s is nullptr\n", #ptr);                                                                 \
            expr;                                                                                                     \
        }                                                                                                             \
    } while (0)
#endif
#ifndef OPS_CHECK_NULL_WITH_CONTEXT
#define OPS_CHECK_NULL_WITH_CONTEXT(ctx, ptr) OPS_LOG_E_IF_NULL(ctx, ptr, return ge::GRAPH_FAILED)
#endif
#ifndef OPS_CHECK_NULL_WITH_CONTEXT_RET
#define OPS_CHECK_NULL_WITH_CONTEXT_RET(ctx, ptr, ret) OPS_LOG_E_IF_NULL(ctx, ptr, return ret)
#endif

namespace AscendC {}  // tiling_base.h says `using namespace AscendC` (the adv-API tiling helpers' namespace)

namespace optiling {
struct AiCoreParams {
    uint64_t ubSize = 0;
    uint64_t blockDim = 0;
    uint64_t aicNum = 0;
    uint64_t l1Size = 0;
    uint64_t l0aSize = 0;
    uint64_t l0bSize = 0;
    uint64_t l0cSize = 0;
};

class TilingBaseClass {
public:
    explicit TilingBaseClass(gert::TilingContext* context) : context_(context) {}
    virtual ~TilingBaseClass() = default;

    // GRAPH_SUCCESS: done; GRAPH_FAILED: stop; GRAPH_PARAM_INVALID: this class does not apply, try the next
    ge::graphStatus DoTiling() {
        ge::graphStatus ret = GetShapeAttrsInfo();
        if (ret != ge::GRAPH_SUCCESS) return ret;
        if ((ret = GetPlatformInfo()) != ge::GRAPH_SUCCESS) return ret;
        if (!IsCapable()) return ge::GRAPH_PARAM_INVALID;
        if ((ret = DoOpTiling()) != ge::GRAPH_SUCCESS) return ret;
        if ((ret = DoLibApiTiling()) != ge::GRAPH_SUCCESS) return ret;
        if ((ret = GetWorkspaceSize()) != ge::GRAPH_SUCCESS) return ret;
        if ((ret = PostTiling()) != ge::GRAPH_SUCCESS) return ret;
        context_->SetTilingKey(GetTilingKey());
        DumpTilingInfo();
        return ge::GRAPH_SUCCESS;
    }
    virtual void Reset(gert::TilingContext* context) { context_ = context; }

protected:
    virtual bool IsCapable() = 0;
    virtual ge::graphStatus GetPlatformInfo() = 0;
    virtual ge::graphStatus GetShapeAttrsInfo() = 0;
    virtual ge::graphStatus DoOpTiling() = 0;
    virtual ge::graphStatus DoLibApiTiling() { return ge::GRAPH_SUCCESS; }
    virtual uint64_t GetTilingKey() const = 0;
    virtual ge::graphStatus GetWorkspaceSize() = 0;
    virtual ge::graphStatus PostTiling() { return ge::GRAPH_SUCCESS; }
    virtual void DumpTilingInfo() {}
    static uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) {
        if (aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum) return sliceNum;
        uint32_t ration = aivCoreNum / aicCoreNum;
        return (sliceNum + (ration - 1)) / ration;
    }
    template <class T> std::string GetShapeDebugStr(const T& shape) const {
        std::ostringstream oss;
        oss << "[";
        for (size_t i = 0; i < shape.GetDimNum(); ++i) oss << (i ? ", " : "") << shape.GetDim(i);
        oss << "]";
        return oss.str();
    }

    gert::TilingContext* context_ = nullptr;
    std::unique_ptr<platform_ascendc::PlatformAscendC> ascendcPlatform_{nullptr};
    uint32_t blockDim_{0};
    uint64_t workspaceSize_{0};
    uint64_t tilingKey_{0};
    AiCoreParams aicoreParams_;
};

template <class T> std::unique_ptr<TilingBaseClass> TILING_CLASS(gert::TilingContext* context) {
    return std::unique_ptr<T>(new (std::nothrow) T(context));
}
using TilingClassCase = std::unique_ptr<TilingBaseClass> (*)(gert::TilingContext*);

class TilingCases {
public:
    explicit TilingCases(std::string op_type) : op_type_(std::move(op_type)) {}
    template <class T> void AddTiling(int32_t priority) {
        if (cases_.find(priority) == cases_.end()) cases_[priority] = TILING_CLASS<T>;
    }
    const std::map<int32_t, TilingClassCase>& GetTilingCases() { return cases_; }

private:
    std::map<int32_t, TilingClassCase> cases_;
    const std::string op_type_;
};

class TilingRegistry {
public:
    static TilingRegistry& GetInstance() {
        static TilingRegistry r;
        return r;
    }
    std::shared_ptr<TilingCases> RegisterOp(const std::string& op_type) {
        auto& c = registry_map_[op_type];
        if (!c) c = std::make_shared<TilingCases>(op_type);
        return c;
    }
    ge::graphStatus DoTilingImpl(gert::TilingContext* context) {
        for (auto& kv : GetTilingTemplates(context->GetNodeType())) {
            auto t = kv.second(context);
            if (t == nullptr) continue;
            ge::graphStatus st = t->DoTiling();
            if (st != ge::GRAPH_PARAM_INVALID) return st;
        }
        std::printf("[E] %s: no registered tiling template applies\n", context->GetNodeType());
        return ge::GRAPH_FAILED;
    }
    ge::graphStatus DoTilingImpl(gert::TilingContext* context, const std::vector<int32_t>& priorities) {
        auto& cases = GetTilingTemplates(context->GetNodeType());
        for (int32_t p : priorities) {
            auto it = cases.find(p);
            if (it == cases.end()) continue;
            auto t = it->second(context);
            if (t != nullptr && t->DoTiling() == ge::GRAPH_SUCCESS) return ge::GRAPH_SUCCESS;
        }
        return ge::GRAPH_FAILED;
    }
    const std::map<int32_t, TilingClassCase>& GetTilingTemplates(const std::string& op_type) {
        auto it = registry_map_.find(op_type);
        return it == registry_map_.end() ? empty_ : it->second->GetTilingCases();
    }

private:
    std::map<std::string, std::shared_ptr<TilingCases>> registry_map_;
    const std::map<int32_t, TilingClassCase> empty_{};
};

class Register {
public:
    explicit Register(std::string op_type) : op_type_(std::move(op_type)) {}
    template <class T> Register& tiling(int32_t priority) {
        TilingRegistry::GetInstance().RegisterOp(op_type_)->AddTiling<T>(priority);
        return *this;
    }

private:
    const std::string op_type_;
};
}  // namespace optiling

// op_type: the op's name (a string), class_name: a TilingBaseClass, priority: lower is tried first
#define REGISTER_TILING_TEMPLATE(op_type, class_name, priority)                                                       \
    static ::optiling::Register VAR_UNUSED ASC_SIM_TILING_TEMPLATE_CAT_(asc_sim_tiling_template_, __COUNTER__) =      \
        ::optiling::Register(op_type).tiling<class_name>(priority)
#define ASC_SIM_TILING_TEMPLATE_CAT2_(a, b) a##b
#define ASC_SIM_TILING_TEMPLATE_CAT_(a, b) ASC_SIM_TILING_TEMPLATE_CAT2_(a, b)
