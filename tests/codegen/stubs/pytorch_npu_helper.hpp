// Stub of MultiKernelBench's CppExtension/csrc/pytorch_npu_helper.hpp: EXEC_NPU_CMD takes the aclnn
// API name and its arguments (inputs, attributes, outputs).
#pragma once
#include <torch/extension.h>

template <typename... Args>
void AscendcraftStubExecNpuCmd(const char* api, const Args&... args);
#define EXEC_NPU_CMD(aclnn_api, ...) AscendcraftStubExecNpuCmd(#aclnn_api, __VA_ARGS__)
