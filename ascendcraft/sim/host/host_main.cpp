// ascendcraft AscendC CPU simulator: the host harness. Compiled once per simulator version (sim/host_build.py)
// and linked with a CANN project's op_host sources; it runs their OpDef, InferShape, InferDataType,
// TilingParse and TilingFunc on a case and prints what they decided (docs/simulator.md, "CANN projects").
//
//   host.bin <case file>
//
// The case (written by sim/host.py's case_lines and sim/host_run.py) is line-based: `mode describe|tiling`, `token`, `timeout`, `op`,
// `platform <label> <key> <value>`, `input <ir> <dtype> <format> <ndim> <dims...>` (one per tensor),
// `absent <ir>`, `value <instance> <hex>`, `output <ir> <dtype|-1> <format> <ndim|-1> <dims...>`,
// `attr <name> <value...>`, `deterministic 0|1`. The answer is one line `R <token> <json>` in the report;
// a crash, a sandbox violation or an exit leaves a `C`, `V` or `Q` line naming the phase instead.
//
// Op code is untrusted: the case is read, the report opened, the CPU-time limit set and the seccomp sandbox
// (../sandbox.h, the kernel harness's) installed in a constructor that runs before any static initializer of
// the op's sources (host_setup.h); op code then runs sandboxed from its first instruction.
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <sstream>
#include <string>
#include <typeinfo>
#include <vector>

#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"
#include "host_json.h"
#include "host_setup.h"

namespace asc_sim_host {
namespace {

const char* param_type(ops::Option o) {
    return o == ops::OPTIONAL ? "OPTIONAL" : o == ops::DYNAMIC ? "DYNAMIC" : o == ops::REQUIRED ? "REQUIRED" : "IGNORE";
}
std::string attr_default(const ops::AttrValue& v) {
    if (!v.set) return "null";
    if (v.kind == "bool") return v.ints.empty() ? "null" : v.ints[0] ? "true" : "false";
    if (v.kind == "int") return v.ints.empty() ? "null" : std::to_string(v.ints[0]);
    if (v.kind == "float") return v.floats.empty() ? "null" : jnum(v.floats[0]);
    if (v.kind == "str") return jstr(v.str);
    if (v.kind == "list_bool") return jlist(v.ints, [](int64_t b) { return std::string(b ? "true" : "false"); });
    if (v.kind == "list_int") return jlist(v.ints, [](int64_t i) { return std::to_string(i); });
    if (v.kind == "list_float") return jlist(v.floats, [](float x) { return jnum(x); });
    return v.json.empty() ? "null" : v.json;
}

struct Op {
    ops::OpDef def;
    OpImpl impl;
    gert::TilingKernelFunc tiling = nullptr;
    gert::InferShapeKernelFunc infer_shape = nullptr;
    gert::InferDataTypeKernelFunc infer_dtype = nullptr;
};

// The OpDef's parameters; those of its first AICore config when the OpDef itself declares none.
std::vector<ops::OpParamDef>& params(Op& op, bool inputs) {
    auto& own = inputs ? op.def.AscSimInputs() : op.def.AscSimOutputs();
    if (!own.empty()) return own;
    for (auto& cfg : op.def.AICore().AscSimConfigs()) {
        auto& p = inputs ? cfg.second.AscSimInputs() : cfg.second.AscSimOutputs();
        if (!p.empty()) return p;
    }
    return own;
}

std::string param_json(const ops::OpParamDef& p) {
    return "{\"name\":" + jstr(p.AscSimName()) + ",\"param_type\":" + jstr(param_type(p.AscSimParamType())) +
           ",\"dtypes\":" + jlist(p.AscSimDataTypes(), [](ge::DataType t) { return jstr(ge::asc_sim_names::DataTypeName(t)); }) +
           ",\"formats\":" + jlist(p.AscSimFormats(), [](ge::Format f) { return jstr(ge::asc_sim_names::FormatName(f)); }) +
           ",\"value_depend\":" + (p.AscSimValueDepend() ? "true" : "false") +
           ",\"scalar\":" + (p.AscSimScalar() ? "true" : "false") + "}";
}

std::string describe_json(Op& op) {
    std::string o = "{\"name\":" + jstr(op.def.AscSimType());
    o += ",\"inputs\":" + jlist(params(op, true), param_json);
    o += ",\"outputs\":" + jlist(params(op, false), param_json);
    o += ",\"attrs\":" + jlist(op.def.AscSimAttrs(), [](const ops::OpAttrDef& a) {
        return "{\"name\":" + jstr(a.AscSimName()) + ",\"type\":" + jstr(a.AscSimDefault().kind) +
               ",\"required\":" + (a.AscSimRequired() ? "true" : "false") + ",\"default\":" + attr_default(a.AscSimDefault()) +
               "}";
    });
    o += std::string(",\"infer_shape\":") + (op.infer_shape ? "true" : "false");
    o += std::string(",\"infer_dtype\":") + (op.infer_dtype ? "true" : op.impl.infer_dtype_first_input ? "\"first_input\"" : "false");
    o += std::string(",\"tiling\":") + (op.tiling ? "true" : "false");
    o += std::string(",\"tiling_parse\":") + (op.impl.tiling_parse ? "true" : "false");
    o += ",\"max_tiling_data_size\":" + std::to_string(op.impl.max_tiling_data_size);
    o += ",\"data_dependency\":" + jlist(op.impl.data_dependency, [](int32_t i) { return std::to_string(i); });
    o += ",\"configs\":" + jlist(op.def.AICore().AscSimConfigs(), [](const std::pair<std::string, ops::OpAICoreConfig>& c) {
        return jstr(c.first);
    });
    return o + "}";
}

// ------------------------------------------------------------------------------------------- tiling
constexpr size_t kTilingCapacity = 64 * 1024;

// Memory whose end meets a PROT_NONE page: op code that writes past it faults (as GM arguments do).
uint8_t* guarded(size_t bytes) {
    const size_t page = 4096;
    size_t data = (std::max<size_t>(bytes, 1) + page - 1) / page * page;
    void* p = mmap(nullptr, data + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    uint8_t* base = static_cast<uint8_t*>(p);
    mprotect(base + data, page, PROT_NONE);
    return base + data - bytes;
}

std::deque<std::unique_ptr<uint8_t[]>> g_storage;  // attribute values (dynamic init: used from main only)

uint8_t* store(size_t bytes) {
    g_storage.emplace_back(new uint8_t[bytes + 8]());
    return g_storage.back().get();
}

// The attribute value `text` (the case's canonical form) of kind `kind` stored for RuntimeAttrs.
const void* attr_value(const std::string& kind, const std::string& text, std::string& error) {
    std::istringstream is(text);
    if (kind == "int") {
        auto* p = reinterpret_cast<int64_t*>(store(8));
        if (!(is >> *p)) error = "an int";
        return p;
    }
    if (kind == "float") {
        double d = 0;
        if (!(is >> d)) error = "a float";
        auto* p = reinterpret_cast<float*>(store(4));
        *p = static_cast<float>(d);
        return p;
    }
    if (kind == "bool") {
        int b = 0;
        if (!(is >> b)) error = "a bool";
        auto* p = reinterpret_cast<bool*>(store(1));
        *p = b != 0;
        return p;
    }
    if (kind == "str") {
        std::string hex;
        is >> hex;
        std::vector<uint8_t> bytes = unhex(hex);
        uint8_t* p = store(bytes.size() + 1);
        if (!bytes.empty()) std::memcpy(p, bytes.data(), bytes.size());
        return p;
    }
    if (kind == "list_int" || kind == "list_float" || kind == "list_bool") {
        size_t n = 0;
        is >> n;
        size_t elem = kind == "list_int" ? 8 : kind == "list_float" ? 4 : 1;
        auto holder = gert::ContinuousVector::AscSimCreate(n, elem);
        auto* v = reinterpret_cast<gert::ContinuousVector*>(holder.get());
        v->SetSize(n);
        auto* data = static_cast<uint8_t*>(v->MutableData());
        for (size_t i = 0; i < n; ++i) {
            double d = 0;
            if (!(is >> d)) error = "a list of " + kind.substr(5);
            if (kind == "list_int") reinterpret_cast<int64_t*>(data)[i] = static_cast<int64_t>(d);
            else if (kind == "list_float") reinterpret_cast<float*>(data)[i] = static_cast<float>(d);
            else data[i] = d != 0;
        }
        g_storage.push_back(std::move(holder));
        return g_storage.back().get();
    }
    error = "a value of a type the simulator does not pass (" + kind + ")";
    return store(8);
}

// The value an attribute the case does not give takes: its default, or zero.
std::string default_text(const ops::AttrValue& v) {
    std::string o;
    if (v.kind == "int" || v.kind == "bool") return std::to_string(v.ints.empty() ? 0 : v.ints[0]);
    if (v.kind == "float") return jnum(v.floats.empty() ? 0.0f : v.floats[0]);
    if (v.kind == "str") {
        for (unsigned char c : v.str) {
            char b[4];
            std::snprintf(b, sizeof b, "%02x", c);
            o += b;
        }
        return o;
    }
    if (v.kind == "list_int" || v.kind == "list_bool") {
        o = std::to_string(v.ints.size());
        for (int64_t i : v.ints) o += " " + std::to_string(i);
        return o;
    }
    if (v.kind == "list_float") {
        o = std::to_string(v.floats.size());
        for (float f : v.floats) o += " " + jnum(f);
        return o;
    }
    return "0";
}

ge::Format fmt(int f) { return static_cast<ge::Format>(f); }
ge::DataType dt(int t) { return static_cast<ge::DataType>(t); }

// The node of the case: inputs by IR index (dynamic ones as several tensors), outputs, attributes.
bool build_node(Op& op, Node& n, std::string& error) {
    Case& c = *g_case;
    n.type = op.def.AscSimType();
    n.name = n.type;
    n.platform = &platform();
    n.deterministic = c.deterministic;
    auto& ins = params(op, true);
    auto& outs = params(op, false);
    for (size_t ir = 0; ir < ins.size(); ++ir) {
        uint32_t start = static_cast<uint32_t>(n.in_desc.size()), num = 0;
        for (const CaseInput& in : c.inputs) {
            if (in.ir != static_cast<int>(ir)) continue;
            gert::Shape s;
            for (int64_t d : in.dims) s.AppendDim(d);
            n.in_shapes.emplace_back(s, s);
            n.in_plain.push_back(s);
            gert::CompileTimeTensorDesc desc;
            desc.SetDataType(dt(in.dtype));
            desc.SetOriginFormat(fmt(in.format));
            desc.SetStorageFormat(fmt(in.format));
            n.in_desc.push_back(desc);
            n.in_dtypes.push_back(dt(in.dtype));
            n.in_tensors.emplace_back(gert::StorageShape(s, s), gert::StorageFormat(fmt(in.format), fmt(in.format)),
                                      dt(in.dtype));
            ++num;
        }
        bool absent = false;
        for (int a : c.absent) absent = absent || a == static_cast<int>(ir);
        if (num == 0 && !absent) {
            error = "the case gives no tensor for input " + ins[ir].AscSimName();
            return false;
        }
        if (num == 0 && ins[ir].AscSimParamType() != ops::OPTIONAL) {
            error = "input " + ins[ir].AscSimName() + " is " + param_type(ins[ir].AscSimParamType()) + " and cannot be absent";
            return false;
        }
        if (num > 1 && ins[ir].AscSimParamType() != ops::DYNAMIC) {
            error = "input " + ins[ir].AscSimName() + " is not DYNAMIC but the case gives it several tensors";
            return false;
        }
        n.in_ir.emplace_back(start, num);
    }
    for (auto& kv : c.values) {
        if (kv.first < 0 || kv.first >= static_cast<int>(n.in_tensors.size())) continue;
        uint8_t* p = store(kv.second.size());
        if (!kv.second.empty()) std::memcpy(p, kv.second.data(), kv.second.size());
        n.in_tensors[kv.first].AscSimSetData(p, kv.second.size());
    }
    for (size_t ir = 0; ir < outs.size(); ++ir) {
        uint32_t start = static_cast<uint32_t>(n.out_desc.size()), num = 0;
        for (const CaseOutput& out : c.outputs) {
            if (out.ir != static_cast<int>(ir)) continue;
            gert::Shape s;
            for (int64_t d : out.dims) s.AppendDim(d);
            n.out_shapes.emplace_back(s, s);
            n.out_plain.push_back(s);
            gert::CompileTimeTensorDesc desc;
            desc.SetDataType(out.dtype < 0 ? ge::DT_UNDEFINED : dt(out.dtype));
            desc.SetOriginFormat(fmt(out.format));
            desc.SetStorageFormat(fmt(out.format));
            n.out_desc.push_back(desc);
            n.out_dtypes.push_back(out.dtype < 0 ? ge::DT_UNDEFINED : dt(out.dtype));
            ++num;
        }
        n.out_ir.emplace_back(start, num);
    }
    for (auto& a : op.def.AscSimAttrs()) {
        const ops::AttrValue& v = a.AscSimDefault();
        auto it = c.attrs.find(a.AscSimName());
        if (it == c.attrs.end() && a.AscSimRequired() && !v.set) {
            error = "the required attribute " + a.AscSimName() + " (" + v.kind + ") is not given";
            return false;
        }
        std::string bad;
        n.attrs.AscSimAdd(attr_value(v.kind, it != c.attrs.end() ? it->second : default_text(v), bad));
        if (!bad.empty()) {
            error = "attribute " + a.AscSimName() + " needs " + bad;
            return false;
        }
    }
    for (auto& kv : c.attrs) {
        bool known = false;
        for (auto& a : op.def.AscSimAttrs()) known = known || a.AscSimName() == kv.first;
        if (!known) {
            error = "the op " + n.type + " has no attribute " + kv.first;
            return false;
        }
    }
    return true;
}

// Output dtypes from the OpDef's table (the column whose input types match the case), for ops without
// InferDataType.
void dtypes_from_table(Op& op, Node& n) {
    auto& ins = params(op, true);
    auto& outs = params(op, false);
    size_t cols = 0;
    for (auto& p : ins) cols = std::max(cols, p.AscSimDataTypes().size());
    for (size_t col = 0; col < cols; ++col) {
        bool match = true;
        for (size_t ir = 0; ir < ins.size() && match; ++ir) {
            const auto& types = ins[ir].AscSimDataTypes();
            long i = n.InInstance(ir, 0);
            if (i < 0 || types.empty()) continue;
            match = col < types.size() && types[col] == n.in_dtypes[i];
        }
        if (!match) continue;
        for (size_t ir = 0; ir < outs.size(); ++ir) {
            const auto& types = outs[ir].AscSimDataTypes();
            for (uint32_t k = 0; k < n.out_ir[ir].GetInstanceNum(); ++k) {
                size_t i = n.out_ir[ir].GetInstanceStart() + k;
                if (n.out_dtypes[i] == ge::DT_UNDEFINED && col < types.size()) n.out_dtypes[i] = types[col];
            }
        }
        return;
    }
}

std::string tiling_json(Op& op) {
    Node n;
    std::string error;
    if (!build_node(op, n, error)) return "{\"error\":" + jstr(error) + ",\"phase\":\"case\"}";
    std::string o = "{";
    bool infer_shapes = false, infer_types = false;
    for (const CaseOutput& out : g_case->outputs) {
        infer_shapes = infer_shapes || out.infer_shape;
        infer_types = infer_types || out.dtype < 0;
    }
    if (infer_shapes) {
        if (!op.infer_shape)
            return "{\"error\":\"the op has no InferShape: give the output shapes\",\"phase\":\"InferShape\"}";
        uint32_t st = 0;
        gert::InferShapeContext ctx(&n);
        if (!call("InferShape", [&] { st = op.infer_shape(&ctx); }, error))
            return "{\"error\":" + jstr(error) + ",\"phase\":\"InferShape\"}";
        if (st != ge::GRAPH_SUCCESS)
            return "{\"error\":" + jstr("InferShape returned " + std::string(st == ge::GRAPH_FAILED ? "GRAPH_FAILED" : std::to_string(st))) +
                   ",\"status\":" + std::to_string(st) + ",\"phase\":\"InferShape\"}";
        for (size_t i = 0; i < n.out_plain.size(); ++i) n.out_shapes[i] = gert::StorageShape(n.out_plain[i], n.out_plain[i]);
    }
    if (infer_types) {
        if (op.infer_dtype) {
            uint32_t st = 0;
            gert::InferDataTypeContext ctx(&n);
            if (!call("InferDataType", [&] { st = op.infer_dtype(&ctx); }, error))
                return "{\"error\":" + jstr(error) + ",\"phase\":\"InferDataType\"}";
            if (st != ge::GRAPH_SUCCESS)
                return "{\"error\":" + jstr("InferDataType returned " + std::string(st == ge::GRAPH_FAILED ? "GRAPH_FAILED" : std::to_string(st))) +
                       ",\"status\":" + std::to_string(st) + ",\"phase\":\"InferDataType\"}";
            // an output InferDataType leaves unset (CrossEntropyLoss's zloss) is allocated, as a
            // caller would, in the dtype the OpDef's column for these inputs declares
            dtypes_from_table(op, n);
        } else if (op.impl.infer_dtype_first_input && !n.in_dtypes.empty()) {
            for (auto& t : n.out_dtypes)
                if (t == ge::DT_UNDEFINED) t = n.in_dtypes[0];
        } else {
            dtypes_from_table(op, n);
        }
        for (size_t i = 0; i < n.out_desc.size(); ++i) n.out_desc[i].SetDataType(n.out_dtypes[i]);
    }
    o += "\"outputs\":" + jlist(n.out_shapes, [&](const gert::StorageShape& s) { return jdims(s.GetStorageShape()); });
    o += ",\"output_dtypes\":" + jlist(n.out_dtypes, [](ge::DataType t) { return jstr(ge::asc_sim_names::DataTypeName(t)); });
    o += ",\"input_dtypes\":" + jlist(n.in_dtypes, [](ge::DataType t) { return jstr(ge::asc_sim_names::DataTypeName(t)); });
    if (!op.tiling) return o + ",\"error\":\"the op registers no tiling function\",\"phase\":\"TilingFunc\"}";
    // compile info: TilingParse's object, or a zeroed placeholder as OP_ADD's OpAddCompilerInfoPlaceholder
    static uint64_t placeholder[512];
    n.compile_info = placeholder;
    if (op.impl.tiling_parse && op.impl.compile_info_create) {
        n.compile_info = op.impl.compile_info_create();
        uint32_t st = 0;
        gert::TilingParseContext ctx(&n);
        if (!call("TilingParse", [&] { st = op.impl.tiling_parse(&ctx); }, error))
            return o + ",\"error\":" + jstr(error) + ",\"phase\":\"TilingParse\"}";
        if (st != ge::GRAPH_SUCCESS)
            return o + ",\"error\":" + jstr("TilingParse returned " + std::string(st == ge::GRAPH_FAILED ? "GRAPH_FAILED" : std::to_string(st))) +
                   ",\"status\":" + std::to_string(st) + ",\"phase\":\"TilingParse\"}";
    }
    // CANN sizes the device's tiling buffer from the kernel's compiled tiling struct (asc-devkit
    // tools/build/asc_op_compile_base/adapter/compile_op.py: opParaSize = the struct's size + 8), not from
    // OpImplRegisterV2::Tiling's 2048-byte default: NPUKernelBench answers save 3-4.5 KB structs. The host
    // gets at least kTilingCapacity bytes.
    const size_t capacity = std::max(op.impl.max_tiling_data_size, kTilingCapacity);
    uint8_t* buffer = guarded(capacity);
    gert::TilingData raw;
    raw.AscSimInit(buffer, capacity);
    n.raw = &raw;
    const size_t ws_capacity = 16;
    auto ws = gert::ContinuousVector::AscSimCreate(ws_capacity, sizeof(size_t));
    n.workspace = reinterpret_cast<gert::ContinuousVector*>(ws.get());
    uint32_t st = 0;
    gert::TilingContext ctx(&n);
    bool ran = call("TilingFunc", [&] { st = op.tiling(&ctx); }, error);
    g_phase = "the harness, after TilingFunc";
    const size_t size = raw.GetDataSize();
    if (size > capacity)
        g_errors->push_back("SetDataSize(" + std::to_string(size) + ") is more than the tiling buffer's capacity of " +
                            std::to_string(capacity) + " bytes (GetRawTilingData()->GetCapacity())");
    std::vector<size_t> sizes(static_cast<const size_t*>(n.workspace->GetData()),
                              static_cast<const size_t*>(n.workspace->GetData()) + n.workspace->GetSize());
    o += ",\"status\":" + std::to_string(st);
    o += ",\"block_dim\":" + std::to_string(n.block_dim);
    o += ",\"tiling_key\":" + std::to_string(n.tiling_key);
    o += ",\"data_size\":" + std::to_string(size);
    o += ",\"capacity\":" + std::to_string(capacity);
    o += ",\"lib_api_workspace\":" +
         std::to_string(platform_ascendc::PlatformAscendC(&platform()).GetLibApiWorkSpaceSize());
    o += ",\"tiling\":\"" + hex(buffer, std::min(size, capacity)) + "\"";
    o += ",\"workspaces\":" + jlist(sizes, [](size_t s) { return std::to_string(s); });
    o += std::string(",\"need_atomic\":") + (n.need_atomic ? "true" : "false");
    o += ",\"schedule_mode\":" + std::to_string(n.schedule_mode);
    o += ",\"errors\":" + jlist(*g_errors, jstr);
    if (!ran) return o + ",\"error\":" + jstr(error) + ",\"phase\":\"TilingFunc\"}";
    if (st != ge::GRAPH_SUCCESS)
        return o + ",\"error\":" + jstr("TilingFunc returned " + std::string(st == ge::GRAPH_FAILED ? "GRAPH_FAILED" : std::to_string(st))) +
               ",\"phase\":\"TilingFunc\"}";
    return o + "}";
}

}  // namespace

// SaveToBuffer's check (tiling_def.h): CANN's memcpy_s fails when the struct does not fit the buffer.
void tiling_save_check(const char* cls, const void* dst, size_t bytes, size_t capacity) {
    if (g_errors == nullptr) return;
    if (dst == nullptr) g_errors->push_back(std::string(cls) + "::SaveToBuffer was given a null buffer");
    else if (bytes > capacity)
        g_errors->push_back(std::string(cls) + "::SaveToBuffer: the tiling struct has " + std::to_string(bytes) +
                            " bytes and the buffer " + std::to_string(capacity) + "; only " + std::to_string(capacity) +
                            " were saved");
}
}  // namespace asc_sim_host

int main() {
    using namespace asc_sim_host;
    g_op_code = 0;
    std::vector<Op> ops;
    std::string error;
    for (auto& e : op_defs()) {
        Op op{ops::OpDef(e.type.c_str()), OpImpl(), nullptr, nullptr, nullptr};
        std::string phase = "the OpDef constructor of " + e.type;
        if (!call(phase.c_str(), [&] { op.def = e.make(); }, error)) break;
        auto it = op_impls().find(e.type);
        if (it != op_impls().end()) op.impl = it->second;
        op.tiling = op.def.AICore().GetTiling() ? op.def.AICore().GetTiling() : op.impl.tiling;
        op.infer_shape = op.def.GetInferShape() ? op.def.GetInferShape() : op.impl.infer_shape;
        op.infer_dtype = op.def.GetInferDataType() ? op.def.GetInferDataType() : op.impl.infer_dtype;
        ops.push_back(std::move(op));
    }
    g_phase = "the harness";
    if (!error.empty()) {
        answer("{\"error\":" + jstr(error) + ",\"phase\":\"OpDef\"}");
        return 0;
    }
    if (g_case->mode == "describe") {
        std::vector<std::string> impl_only;
        for (auto& kv : op_impls()) {
            bool has_def = false;
            for (auto& op : ops) has_def = has_def || op.def.AscSimType() == kv.first;
            if (!has_def) impl_only.push_back(kv.first);
        }
        answer("{\"ops\":" + jlist(ops, [](Op& op) { return describe_json(op); }) +
               ",\"impl_only\":" + jlist(impl_only, jstr) + "}");
        return 0;
    }
    Op* chosen = nullptr;
    for (auto& op : ops)
        if (g_case->op.empty() ? ops.size() == 1 : op.def.AscSimType() == g_case->op) chosen = &op;
    if (chosen == nullptr) {
        answer("{\"error\":" + jstr("no OpDef named " + (g_case->op.empty() ? std::string("(the only one)") : g_case->op) +
                                    " is registered with OP_ADD") + ",\"phase\":\"case\"}");
        return 0;
    }
    answer(tiling_json(*chosen));
    return 0;
}
