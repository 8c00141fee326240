// Stub of torch_npu's NPUStream.h: the current-stream accessor the bindings use.
#pragma once

namespace c10_npu {
class NPUStream {
public:
    void* stream(bool needCheck = true) const;
};
NPUStream getCurrentNPUStream(int deviceIndex = -1);
}  // namespace c10_npu
