// ascendcraft AscendC CPU simulator: <torch_npu/csrc/core/npu/DeviceUtils.h> for the host code of a direct-launch operator (asc_sim/torch.h).
#pragma once
#include "asc_sim/torch.h"
