// ascendcraft AscendC CPU simulator: host-side AscendCL declarations ("acl/acl.h").
//
// The simulator builds the kernel side of a foreign direct-launch source and never runs its
// host side (the runner renames the host main() and rewrites <<<...>>> launches; see
// docs/simulator.md, "Foreign kernels").  These inline stubs only make the host code compile:
// every call succeeds and does nothing (allocations return host memory).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include "../asc_sim/host.h"

typedef int aclError;
typedef void* aclrtStream;
typedef void* aclrtContext;
typedef void* aclrtEvent;
typedef int32_t aclrtRunMode;
constexpr aclError ACL_SUCCESS = 0;
constexpr aclError ACL_ERROR_NONE = 0;

typedef enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_DEVICE_TO_DEVICE,
    ACL_MEMCPY_DEFAULT,
} aclrtMemcpyKind;

typedef enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEM_MALLOC_HUGE_ONLY,
    ACL_MEM_MALLOC_NORMAL_ONLY,
    ACL_MEM_MALLOC_HUGE_FIRST_P2P,
    ACL_MEM_MALLOC_HUGE_ONLY_P2P,
    ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
} aclrtMemMallocPolicy;

inline aclError aclInit(const char* = nullptr) { return ACL_SUCCESS; }
inline aclError aclFinalize() { return ACL_SUCCESS; }
inline aclError aclrtSetDevice(int32_t) { return ACL_SUCCESS; }
inline aclError aclrtResetDevice(int32_t) { return ACL_SUCCESS; }
inline aclError aclrtGetDevice(int32_t* id) { if (id) *id = 0; return ACL_SUCCESS; }
inline aclError aclrtCreateContext(aclrtContext* c, int32_t) { if (c) *c = nullptr; return ACL_SUCCESS; }
inline aclError aclrtDestroyContext(aclrtContext) { return ACL_SUCCESS; }
inline aclError aclrtCreateStream(aclrtStream* s) { if (s) *s = nullptr; return ACL_SUCCESS; }
inline aclError aclrtDestroyStream(aclrtStream) { return ACL_SUCCESS; }
inline aclError aclrtSynchronizeStream(aclrtStream) { return ACL_SUCCESS; }
inline aclError aclrtSynchronizeDevice() { return ACL_SUCCESS; }
inline aclError aclrtMalloc(void** p, size_t size, aclrtMemMallocPolicy) {
    *p = std::malloc(size ? size : 1);
    return *p ? ACL_SUCCESS : 1;
}
inline aclError aclrtMallocHost(void** p, size_t size) {
    *p = std::malloc(size ? size : 1);
    return *p ? ACL_SUCCESS : 1;
}
inline aclError aclrtFree(void* p) { std::free(p); return ACL_SUCCESS; }
inline aclError aclrtFreeHost(void* p) { std::free(p); return ACL_SUCCESS; }
inline aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind) {
    if (count > destMax) return 1;
    if (count) std::memcpy(dst, src, count);
    return ACL_SUCCESS;
}
inline aclError aclrtMemset(void* p, size_t destMax, int32_t v, size_t count) {
    if (count > destMax) return 1;
    if (count) std::memset(p, v, count);
    return ACL_SUCCESS;
}
inline const char* aclGetRecentErrMsg() { return ""; }

