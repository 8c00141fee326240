// ascendcraft AscendC CPU simulator: what the runner turns a host-side kernel launch into.
#pragma once
#include <cstdint>

namespace asc_sim_host {
// What a rewritten `kernel<<<blockDim, l2ctrl, stream>>>(args...)` becomes: the launch is
// type-checked loosely (every expression is evaluated for the compiler) and does nothing.
template <class K, class... A> inline void launch(K&&, A&&...) {}
struct AclrtLaunch {
    template <class... A> uint32_t operator()(A&&...) const { return 0; }
};
}  // namespace asc_sim_host
// ACLRT_LAUNCH_KERNEL(kernel)(blockDim, stream, args...) from the generated aclrtlaunch_<kernel>.h
#define ACLRT_LAUNCH_KERNEL(kernel) ::asc_sim_host::AclrtLaunch{}
#ifdef ASC_SIM_DIRECT_HOST  // the host code of a direct-launch operator, run: its launches are recorded
#include "asc_sim/direct_launch.h"
#endif
