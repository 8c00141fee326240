// Stub of torch/extension.h: the ATen, c10 and pybind11 names the generated bindings use.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

namespace c10 {
enum class ScalarType { Byte, Char, Short, Int, Long, Half, Float, Bool, BFloat16 };
const char* toString(ScalarType t);
struct Device {};
}  // namespace c10

namespace at {
using ScalarType = c10::ScalarType;
constexpr ScalarType kByte = ScalarType::Byte, kChar = ScalarType::Char, kShort = ScalarType::Short,
                     kInt = ScalarType::Int, kLong = ScalarType::Long, kHalf = ScalarType::Half,
                     kFloat = ScalarType::Float, kBool = ScalarType::Bool, kBFloat16 = ScalarType::BFloat16;
class TensorOptions {
public:
    TensorOptions dtype(ScalarType t) const;
};
class Tensor {
public:
    int64_t size(int64_t dim) const;
    int64_t dim() const;
    ScalarType scalar_type() const;
    Tensor contiguous() const;
    void* data_ptr() const;
    TensorOptions options() const;
    c10::Device device() const;
    Tensor to(c10::Device device) const;
};
Tensor empty(std::initializer_list<int64_t> size, TensorOptions options);
}  // namespace at

template <typename... Args>
void AscendcraftStubCheck(bool condition, const Args&... message);
#define TORCH_CHECK(cond, ...) AscendcraftStubCheck(static_cast<bool>(cond), __VA_ARGS__)

namespace pybind11 {
struct arg {
    explicit arg(const char* name);
    template <typename T> arg& operator=(const T& value);
};
class module_ {
public:
    template <typename F, typename... Extra> module_& def(const char* name, F&& f, const Extra&... extra);
    std::string& doc();
    module_& doc(const char* text);
};
}  // namespace pybind11
namespace py = pybind11;
// The real macro defines the module init function; this one only gives `m` a type.
#define PYBIND11_MODULE(name, variable) void ascendcraft_stub_module_init(py::module_& variable)
