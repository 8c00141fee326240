// The test operator's Python binding: allocates the output, tiles on the host and launches.
#include <torch/extension.h>
#include "torch_npu/csrc/core/npu/NPUStream.h"
#include "leaky_launch.h"
#include "aclrtlaunch_leaky_f32.h"

namespace {

void launch(const at::Tensor& x, const at::Tensor& y, double slope)
{
    auto stream = c10_npu::getCurrentNPUStream().stream(false);
    LeakyTiling t = leaky_tiling(x.numel(), x.element_size());
    auto xp = reinterpret_cast<GM_ADDR>(x.data_ptr());
    auto yp = reinterpret_cast<GM_ADDR>(y.data_ptr());
    if (x.scalar_type() == at::kFloat) {
        launch_leaky_float(xp, yp, x.numel(), t, static_cast<float>(slope), stream);
    } else {
        launch_leaky_half(xp, yp, x.numel(), t, static_cast<float>(slope), stream);
    }
}

at::Tensor leaky(const at::Tensor& x, double slope)
{
    TORCH_CHECK(x.scalar_type() == at::kFloat || x.scalar_type() == at::kHalf, "leaky: float32 or float16, not ",
                x.scalar_type());
    at::Tensor y = at::empty_like(x);
    launch(x.contiguous(), y, slope);
    return y;
}

// leaky_relu applied twice, through a tensor of the host's
at::Tensor leaky_twice(const at::Tensor& x, double slope)
{
    at::Tensor once = at::empty(x.sizes(), x.options());
    launch(x, once, slope);
    at::Tensor y = torch::empty_like(once);
    launch(once, y, slope);
    return y;
}

// the first and second halves of x in two launches, through pointers into the middle of x and y
at::Tensor leaky_halves(const at::Tensor& x, double slope)
{
    at::Tensor y = at::empty_like(x);
    const int64_t n = x.numel(), half = n / 2;
    auto stream = c10_npu::getCurrentNPUStream().stream(false);
    float* xp = x.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    launch_leaky_float(reinterpret_cast<GM_ADDR>(xp), reinterpret_cast<GM_ADDR>(yp), half, leaky_tiling(half, 4),
                       static_cast<float>(slope), stream);
    launch_leaky_float(reinterpret_cast<GM_ADDR>(xp + half), reinterpret_cast<GM_ADDR>(yp + half), n - half,
                       leaky_tiling(n - half, 4), static_cast<float>(slope), stream);
    return y;
}

// the C kernel through ACLRT_LAUNCH_KERNEL, as CANN's kernel-launch samples call it
at::Tensor leaky_aclrt(const at::Tensor& x, double slope)
{
    at::Tensor y = at::empty_like(x);
    LeakyTiling t = leaky_tiling(x.numel(), 4);
    ACLRT_LAUNCH_KERNEL(leaky_f32)(t.blocks, c10_npu::getCurrentNPUStream().stream(false), x.data_ptr(), y.data_ptr(),
                                   static_cast<uint32_t>(x.numel()), t.perBlock, t.tile, static_cast<float>(slope));
    return y;
}

}  // namespace

PYBIND11_MODULE(leaky_ops, m)
{
    m.doc() = "leaky_relu through a direct-launch kernel";
    m.def("leaky", &leaky, "leaky_relu", py::arg("x"), py::arg("slope"));
    m.def("leaky_twice", &leaky_twice);
    m.def("leaky_halves", &leaky_halves);
    m.def("leaky_aclrt", &leaky_aclrt);
}
