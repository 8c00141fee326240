// ascendcraft AscendC CPU simulator: the host harness of a direct-launch operator (MultiKernelBench's
// ascendc_direct_launch form: kernel sources with <<<>>> launch wrappers and a pybind11 binding). Compiled once
// per simulator version (sim/direct.py) and linked with the operator's sources, built against asc_sim/torch.h.
//
//   direct.bin <case file>
//
// The case (sim/direct.py) holds, besides the lines host_setup.h reads for every host harness (report, token,
// timeout, platform), `call <function>` and one `arg ...` line per argument: `tensor <dtype> <ndim> <dims...>`,
// `int <v>`, `bool <v>`, `float <v>`, `ints <n> <v...>`, `floats <n> <v...>`, `none`, `str <text>`. The harness
// runs the PYBIND11_MODULE bodies, calls the function, and answers one line `R <token> <json>`: the tensors
// (inputs and the ones the host code allocated), the events in order (fills and kernel launches with their
// arguments) and the tensors returned. The simulator then runs the launches (sim/direct.py). Op code runs in
// the sandbox from its first instruction (host_setup.h).
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "asc_sim/torch.h"
#include "asc_sim/direct_launch.h"
#include "host_json.h"
#include "host_setup.h"

namespace asc_sim { bool hook_cross_scheduler() { return false; }  // the runtime's; no kernel runs here
}

namespace asc_sim_direct {

int new_storage(c10::ScalarType dtype, const std::vector<int64_t>& shape, const std::string& origin) {
    Record& r = record();
    if (dtype == c10::ScalarType::Undefined) throw c10::Error("a tensor of an undefined dtype");
    uint64_t n = 1;
    for (int64_t s : shape) n *= static_cast<uint64_t>(s);
    const uint64_t bytes = n * static_cast<uint64_t>(c10::elementSize(dtype));
    const uint64_t gap = 2ull << 20;   // between allocations, so a pointer just past one is in none
    Storage s{static_cast<int>(r.storages.size()), dtype, shape, r.next, bytes, origin};
    r.next += (bytes + gap - 1) / gap * gap + gap;
    r.storages.push_back(s);
    return s.id;
}

void fill(int storage, double value) {
    Event e;
    e.kind = "fill";
    e.storage = storage;
    e.value = value;
    record().events.push_back(e);
}

std::string launch_arg_json(const void* address) {
    const uint64_t a = reinterpret_cast<uint64_t>(address);
    if (a == 0) return "{\"null\":true}";
    for (const Storage& s : record().storages)
        if (a >= s.address && a < s.address + (s.bytes ? s.bytes : 1))
            return "{\"tensor\":" + std::to_string(s.id) + ",\"offset\":" + std::to_string(a - s.address) + "}";
    return "{\"pointer\":\"memory no tensor holds (host memory, or past the end of a tensor)\"}";
}

void record_launch_named(const char* kernel, int64_t block_dim, std::vector<std::string> args) {
    Event e;
    e.kind = "launch";
    e.kernel = kernel;
    e.block_dim = block_dim;
    e.args = std::move(args);
    record().events.push_back(e);
}

void record_launch(const char* pretty, int64_t block_dim, std::vector<std::string> args) {
    // "void asc_sim_host::launch_named(...) [with auto K = relu_kernel<float>; A = {...}]"
    std::string p = pretty, name;
    size_t k = p.find("K = ");
    if (k != std::string::npos) {
        size_t end = p.find("; A = ", k);
        if (end == std::string::npos) end = p.rfind(']');
        name = p.substr(k + 4, end - k - 4);
    }
    while (!name.empty() && (name[0] == '&' || name[0] == ' ')) name.erase(0, 1);
    record_launch_named(name.c_str(), block_dim, std::move(args));
}

}  // namespace asc_sim_direct

void* at::Tensor::data_ptr() const {
    const auto& s = asc_sim_direct::record().storages.at(static_cast<size_t>(asc_sim_storage()));
    return reinterpret_cast<void*>(s.address + static_cast<uint64_t>(asc_sim_offset()));
}

at::Tensor at::Tensor::view(IntArrayRef shape) const {
    std::vector<int64_t> v = shape.vec();
    int64_t known = 1, infer = -1;
    for (size_t k = 0; k < v.size(); ++k) {
        if (v[k] == -1) {
            if (infer >= 0) throw c10::Error("only one dimension can be inferred");
            infer = static_cast<int64_t>(k);
        } else if (v[k] < 0) {
            throw c10::Error("invalid shape dimension " + std::to_string(v[k]));
        } else {
            known *= v[k];
        }
    }
    if (infer >= 0) {
        if (known == 0 || numel() % known) throw c10::Error("shape is invalid for input of size " + std::to_string(numel()));
        v[static_cast<size_t>(infer)] = numel() / known;
        known *= v[static_cast<size_t>(infer)];
    }
    if (known != numel())
        throw c10::Error("shape is invalid for input of size " + std::to_string(numel()));
    return Tensor(asc_sim_storage(), scalar_type(), v, asc_sim_offset());
}

at::Tensor at::Tensor::unsqueeze(int64_t d) const {
    std::vector<int64_t> v = sizes().vec();
    int64_t n = static_cast<int64_t>(v.size()) + 1;
    int64_t k = d < 0 ? d + n : d;
    if (k < 0 || k >= n) throw c10::Error("Dimension out of range in unsqueeze");
    v.insert(v.begin() + k, 1);
    return view(v);
}

at::Tensor at::Tensor::squeeze() const {
    std::vector<int64_t> v;
    for (int64_t s : sizes())
        if (s != 1) v.push_back(s);
    return view(v);
}

namespace asc_sim_host {
namespace {

asc_sim_direct::Value value_of(const std::string& line, size_t index) {
    std::istringstream ls(line);
    asc_sim_direct::Value v;
    ls >> v.kind;
    if (v.kind == "tensor") {
        std::string dtype;
        size_t n = 0;
        ls >> dtype >> n;
        std::vector<int64_t> dims(n);
        for (auto& d : dims) ls >> d;
        c10::ScalarType t = c10::asc_sim_dtype_of(dtype);
        v.tensor = at::Tensor(asc_sim_direct::new_storage(t, dims, "input " + std::to_string(index)), t, dims);
    } else if (v.kind == "int" || v.kind == "bool") {
        ls >> v.i;
    } else if (v.kind == "float") {
        std::string text;
        ls >> text;
        v.f = std::strtod(text.c_str(), nullptr);
    } else if (v.kind == "ints") {
        size_t n = 0;
        ls >> n;
        v.ints.resize(n);
        for (auto& x : v.ints) ls >> x;
    } else if (v.kind == "floats") {
        size_t n = 0;
        ls >> n;
        v.floats.resize(n);
        for (auto& x : v.floats) {
            std::string text;
            ls >> text;
            x = std::strtod(text.c_str(), nullptr);
        }
    } else if (v.kind == "str") {
        std::getline(ls >> std::ws, v.s);
    }
    return v;
}

std::string answer_json(const asc_sim_direct::Returned& ret, const std::string& error) {
    const asc_sim_direct::Record& r = asc_sim_direct::record();
    std::string o = "{\"tensors\":" + jlist(r.storages, [](const asc_sim_direct::Storage& s) {
        return "{\"id\":" + std::to_string(s.id) + ",\"dtype\":" + jstr(c10::asc_sim_dtype_name(s.dtype)) +
               ",\"shape\":" + jlist(s.shape, [](int64_t d) { return std::to_string(d); }) +
               ",\"origin\":" + jstr(s.origin) + "}";
    });
    o += ",\"events\":" + jlist(r.events, [](const asc_sim_direct::Event& e) {
        if (e.kind == "fill") return "{\"fill\":" + std::to_string(e.storage) + ",\"value\":" + jnum(e.value) + "}";
        std::string args = "[";
        for (size_t k = 0; k < e.args.size(); ++k) args += (k ? "," : "") + e.args[k];
        return "{\"launch\":" + jstr(e.kernel) + ",\"block_dim\":" + std::to_string(e.block_dim) + ",\"args\":" + args + "]}";
    });
    o += ",\"returns\":" + jlist(ret.tensors, [](const at::Tensor& t) {
        if (!t.defined()) return std::string("null");
        std::vector<int64_t> shape = t.sizes().vec();
        return "{\"tensor\":" + std::to_string(t.asc_sim_storage()) + ",\"offset\":" + std::to_string(t.asc_sim_offset()) +
               ",\"shape\":" + jlist(shape, [](int64_t d) { return std::to_string(d); }) + "}";
    });
    if (!error.empty()) o += ",\"error\":" + jstr(error);
    return o + "}";
}

}  // namespace
}  // namespace asc_sim_host

int main() {
    using namespace asc_sim_host;
    g_op_code = 0;
    g_phase = "the harness";
    std::string error;
    for (auto& m : asc_sim_direct::modules())
        if (!call("PYBIND11_MODULE(" + m.first + ")", m.second, error)) break;
    g_phase = "the harness";
    asc_sim_direct::Returned ret;
    if (error.empty()) {
        auto& fns = asc_sim_direct::functions();
        auto it = fns.find(g_case->call);
        if (it == fns.end()) {
            std::string have;
            for (auto& f : fns) have += (have.empty() ? "" : ", ") + f.first;
            error = "the module defines no function " + g_case->call + " (m.def names: " + (have.empty() ? "none" : have) + ")";
        } else {
            std::vector<asc_sim_direct::Value> values;
            for (size_t k = 0; k < g_case->args.size(); ++k) values.push_back(value_of(g_case->args[k], k));
            call("the binding function " + g_case->call, [&] { ret = it->second(values); }, error);
            g_phase = "the harness";
        }
    }
    answer(answer_json(ret, error));
    return 0;
}
