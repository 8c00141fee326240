// ascendcraft AscendC CPU simulator: a kernel launch in the host code of a direct-launch operator, recorded
// (asc_sim/host.h includes this in the direct host harness's builds only; elsewhere a launch is a no-op).
// `kernel<<<blockDim, l2ctrl, stream>>>(args...)` is rewritten (sim/build.py) into
// `::asc_sim_host::launch_named<kernel>(::asc_sim_host::LaunchConfig{blockDim, l2ctrl, stream}, args...)`: the
// kernel is a template argument, so its instantiation's name (`relu_kernel<float>`) is in __PRETTY_FUNCTION__
// without the kernel ever being called here; each argument is recorded as the tensor it points into or as a number.
#pragma once
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace asc_sim_direct {

// {"tensor": id, "offset": bytes} for an address inside a tensor, else {"pointer": "..."} (direct_main.cpp).
std::string launch_arg_json(const void* address);
// Records a launch: `pretty` is launch_named's __PRETTY_FUNCTION__, which names the kernel.
void record_launch(const char* pretty, int64_t block_dim, std::vector<std::string> args);
void record_launch_named(const char* kernel, int64_t block_dim, std::vector<std::string> args);

template <class T> std::string launch_arg_json_value(const T& v) {
    using D = std::decay_t<T>;
    if constexpr (std::is_same_v<D, bool>) {
        return std::string("{\"int\":") + (v ? "1" : "0") + "}";
    } else if constexpr (std::is_integral_v<D> || std::is_enum_v<D>) {
        return "{\"int\":" + std::to_string(static_cast<int64_t>(v)) + "}";
    } else if constexpr (std::is_floating_point_v<D>) {
        std::ostringstream o;
        o.precision(17);
        o << static_cast<double>(v);
        return "{\"float\":\"" + o.str() + "\"}";
    } else if constexpr (std::is_same_v<D, std::nullptr_t>) {
        return "{\"null\":true}";
    } else if constexpr (std::is_pointer_v<D> || std::is_array_v<std::remove_reference_t<T>>) {
        return launch_arg_json(static_cast<const void*>(v));
    } else if constexpr (std::is_convertible_v<D, float>) {  // half, bfloat16_t
        return launch_arg_json_value(static_cast<float>(v));
    } else {
        return "{\"unsupported\":\"a " + std::to_string(sizeof(D)) + "-byte value that is neither a number nor a pointer\"}";
    }
}

}  // namespace asc_sim_direct

namespace asc_sim_host {
// The <<<...>>> of a launch: the block count first; the l2ctrl and stream arguments are not used.
struct LaunchConfig {
    int64_t block_dim;
    template <class B, class... R> LaunchConfig(B b, R&&...) : block_dim(static_cast<int64_t>(b)) {}
};
template <auto K, class... A> void launch_named(LaunchConfig cfg, A&&... a) {
    ::asc_sim_direct::record_launch(__PRETTY_FUNCTION__, cfg.block_dim, {::asc_sim_direct::launch_arg_json_value(a)...});
}
// ACLRT_LAUNCH_KERNEL(kernel)(blockDim, stream, args...): the kernel is named by its text (an extern "C" kernel)
struct AclrtLaunchNamed {
    const char* kernel;
    template <class B, class S, class... A> uint32_t operator()(B block_dim, S&&, A&&... a) const {
        ::asc_sim_direct::record_launch_named(kernel, static_cast<int64_t>(block_dim),
                                              {::asc_sim_direct::launch_arg_json_value(a)...});
        return 0;
    }
};
}  // namespace asc_sim_host
#undef ACLRT_LAUNCH_KERNEL
#define ACLRT_LAUNCH_KERNEL(kernel) ::asc_sim_host::AclrtLaunchNamed{#kernel}
