"""User names in the generated C++ (codegen/names.py): every DSL identifier is mangled on its way
into C++, so op names, C++ keywords and types, AscendC names, emitter temporaries and the tiling
macros' template parameters (a dim ``V``) all lower, build and match the interpreter on the
simulator. The names the passes invent are fresh with respect to every name of the kernel
(lowering_passes.base.Names), so a writer's ``rwork``, ``_t0``, ``_pf0`` or ``core0`` lowers too;
the CANN project spells each name for its language (C++ keywords as tensor names); and ``check``
shows the checker's warnings."""
from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
from pathlib import Path

from ascendcraft.cli import main
from ascendcraft.codegen.names import SUFFIX, cpp_name, dsl_name, op_arg_name, py_name, unmangle_text
from ascendcraft.dsl.parser import keywords, parse
from ascendcraft.fuzz.differential import FuzzCase, OpDesc, TensorDesc, run_case
from ascendcraft.lowering_passes.base import Names
from ascendcraft.lowering_passes.bufferize import WORK_ROLES, work_buffers

CPP_WORDS = ["half", "float", "int", "class", "new", "delete", "template", "AscendC", "pipe", "GetBlockIdx",
             "min", "max", "TILE", "V", "T", "off_", "r_", "c_", "e_", "workspace", "tiling", "tilingData",
             "scalarBuf", "x_u", "xGm", "x_uGm", "t_rows", "_t0", "__aicore__", "main"]


def test_the_mapping_is_injective_readable_and_apart_from_the_emitters_names():
    names = CPP_WORDS + ["neg", "sub", "lt", "Max", "exp", "sum", "a", "a_", "a_u", "a_u_u"]
    mapped = [cpp_name(n) for n in names]
    assert len(set(mapped)) == len(names)                                   # injective
    assert all(m == n + SUFFIX and dsl_name(m) == n for n, m in zip(names, mapped))
    assert not any(m.endswith(("_", "Gm", "Buf", "_rows", "_cols", "_pitch")) for m in mapped)
    assert cpp_name("V") == "V_u" and cpp_name("class") == "class_u"
    for kept in keywords():     # CORES, inf, dtypes: the emitter reads them
        assert cpp_name(kept) == kept
    for role in WORK_ROLES:     # bufferize's work buffers are names like any other (found by role)
        assert cpp_name(role) == role + SUFFIX
    assert unmangle_text("`t_u = Exp(a_u_u)` stores x_uGm") == "`t = Exp(a_u)` stores x_uGm"


def _run(text, inputs, outputs, attrs=()):
    r = run_case(FuzzCase(text.strip("\n") + "\n", OpDesc(tuple(inputs), tuple(outputs), tuple(attrs))),
                 timeout_s=60)
    assert r.ok, r.report()
    return r


def _f32(*shape):
    return TensorDesc(tuple(shape), "f32", -1.0, 1.0)


def test_op_names_as_variables_lower_and_match():
    r = _run("""
kernel fz(x: gm f32[R, C]) -> (y: gm f32[R, C], z: gm f32[R]):
    const neg = 16
    for lt in parallel(R):
        for sub in range(0, C, neg):
            exp = load(x[lt, sub:sub + neg])
            Max = where(exp < 0.0, -exp, exp * 2.0)
            store(y[lt, sub:sub + neg], exp(Max) - 1.0)
        sum = 0.0
        for j in range(0, C, neg):
            sum = sum + sum(load(x[lt, j:j + neg]))
        store(z[lt], sum)
""", [_f32(3, 40)], [_f32(3, 40), _f32(3)])
    assert "AscendC::Exp(" in r.source and "exp_u" in r.source and "sum_u" in r.source


def test_cpp_keywords_types_and_emitter_names_as_dims_constants_and_variables():
    """A dim V collided with a template parameter of the tiling macros (tiling.h: expected
    primary-expression); half, float, class ... are C++ types and keywords; off_, r_, c_ are the
    emitter's own temporaries; workspace and tiling are the kernel's last two parameters."""
    r = _run("""
kernel fz(half: gm f32[V, T], tiling: gm f32[V, T], new: f32 = 0.5) -> (workspace: gm f32[V, T], class: gm f32[V]):
    const int = 16
    scratch float: f32[V]
    for pipe in parallel(V):
        min = 0.0
        for GetBlockIdx in range(0, T, int):
            AscendC = load(half[pipe, GetBlockIdx:GetBlockIdx + int])
            off_ = load(tiling[pipe, GetBlockIdx:GetBlockIdx + int])
            r_ = AscendC * new + off_
            store(workspace[pipe, GetBlockIdx:GetBlockIdx + int], r_)
            min = min + sum(r_)
        store(float[pipe], min)
    for c_ in parallel(V):
        store(class[c_], load(float[c_]) * 2.0)
""", [_f32(5, 40), _f32(5, 40)], [_f32(5, 40), _f32(5)], attrs=[("new", 0.25)])
    src = r.source
    assert "GM_ADDR half_u, GM_ADDR tiling_u, GM_ADDR workspace_u, GM_ADDR class_u, GM_ADDR workspace, GM_ADDR tiling" \
        in src
    assert "V_u = tilingData.V_u;" in src and "new_u = tilingData.new_u;" in src
    for decl in ("AscendC::LocalTensor<float> AscendC_u;", "AscendC::LocalTensor<float> off__u;",
                 "AscendC::LocalTensor<float> r__u;", "float min_u = 0;", "AscendC::GlobalTensor<float> float_uGm;"):
        assert decl in src, decl


OP = """
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        y = x * 2.0 + 1.0
        return y, y.sum(dim=1)


rows, cols = 5, 40


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
"""

KERNEL = """
# op names, C++ keywords and types, AscendC names and emitter temporaries as names
kernel names(half: gm f32[V, T], new: f32 = 1.0) -> (class: gm f32[V, T], int: gm f32[V]):
    const TILE = 16
    scratch float: f32[V]
    for pipe in parallel(V):
        neg = 0.0
        for GetBlockIdx in range(0, T, TILE):
            AscendC = load(half[pipe, GetBlockIdx:GetBlockIdx + TILE])
            off_ = AscendC * 2.0 + new
            store(class[pipe, GetBlockIdx:GetBlockIdx + TILE], off_)
            neg = neg + sum(off_)
        store(float[pipe], neg)
    for r_ in parallel(V):
        store(int[r_], load(float[r_]))
"""


def test_check_and_lower_from_the_cli(tmp_path, capsys):
    """The writer's path: `check`, then `lower --backend sim`; the host fills the tiling struct and
    sizes the workspace (scratch float: f32[V]) by the DSL's dim names."""
    (tmp_path / "op.py").write_text(OP)
    (tmp_path / "k.dsl").write_text(KERNEL)
    assert main(["check", str(tmp_path / "k.dsl"), "--op", str(tmp_path / "op.py"), "--trials", "2"]) == 0, \
        capsys.readouterr().err
    out = tmp_path / "out"
    code = main(["lower", str(tmp_path / "k.dsl"), "--op", str(tmp_path / "op.py"), "--out", str(out),
                 "--trials", "2", "--backend", "sim"])
    assert code == 0, capsys.readouterr().err
    header = (out / "ascendc" / "names_custom_tiling.h").read_text()
    assert "TILING_DATA_FIELD_DEF(int64_t, V_u);" in header and "TILING_DATA_FIELD_DEF(float, new_u);" in header
    src = (out / "ascendc" / "names_custom.cpp").read_text()
    assert "float_uGm.SetGlobalBuffer" in src and "AscendC::GetUserWorkspace(workspace)" in src


# ------------------------------------------------------------------ names the passes invent

def test_fresh_names_avoid_every_identifier_of_the_kernel():
    """Dims (qin0 appears only in types), loop variables, variables: all are taken."""
    k = parse("""
kernel k(x: gm f32[_n0, qin0]) -> (y: gm f32[_n0, qin0]):
    for core0, f0 in parallel(_n0, 4):
        rwork = load(x[core0, :])
        store(y[core0, :], rwork)
""")
    names = Names(k)
    assert {"_n0", "qin0", "core0", "f0", "rwork", "x", "y"} <= names.taken
    assert names.fresh("_n") == "_n1" and names.fresh("qin") == "qin1" and names.fresh("core") == "core1"
    assert names.fresh("rwork", bare=True) == "rwork0" and names.fresh("swork", bare=True) == "swork"


OP_A = """
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        y = torch.tanh(torch.sigmoid(x) * 2.0) - torch.sigmoid(x) + x * 0.5
        return y, y.sum(dim=1)


rows, cols = 5, 200


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
"""

# Every name a pass invents, as the writer's names: dims _n0 and b0 (bufferize's size constants
# and buffers), parallel and loop variables core0 and f0 (partition), _t0 and _s0 (linearize),
# _prev and _step0 (select's placeholders, here tile operands of multi-step rules: sigmoid, tanh),
# _a0 and _v0 (select), rwork (the reduction's work buffer), _pf0 (prefetch), qin0/qout0 (pipeline).
KERNEL_A = """
kernel names_a(x: gm f32[_n0, b0]) -> (y: gm f32[_n0, b0], z: gm f32[_n0]):
    const _pf1 = 64
    for core0 in parallel(_n0):
        _s0 = 0.0
        for f0 in range(0, b0, _pf1):
            _pf0 = load(x[core0, f0:f0 + _pf1])
            _prev = sigmoid(_pf0)
            _step0 = tanh(_prev * 2.0)
            _t0 = _step0 - _prev
            _a0 = _pf0 * 0.5
            rwork = _t0 + _a0
            store(y[core0, f0:f0 + _pf1], rwork)
            _v0 = sum(rwork)
            qin0 = _s0 + _v0
            qout0 = qin0
            _s0 = qout0
        store(z[core0], _s0)
"""


def _lower_sim(tmp_path, kernel: str, op: str, name: str = "k"):
    from ascendcraft.lower import lower
    (tmp_path / f"{name}.dsl").write_text(kernel.strip("\n") + "\n")
    (tmp_path / f"{name}_op.py").write_text(op)
    return lower(tmp_path / f"{name}.dsl", tmp_path / f"{name}_op.py", backend="sim", model_time=False, trials=1)


def test_writer_names_spelled_like_pass_names_lower_and_match_the_op(tmp_path):
    """Before: bufferize's `buffer rwork` met the writer's rwork ("cannot assign to 'rwork'"); select
    replaced the writer's _prev and _step0 by its own results (IndexError); a dim _n0 met bufferize's
    `const _n0`."""
    r = _lower_sim(tmp_path, KERNEL_A, OP_A, "names_a")
    final = r.run.final.text
    roles = work_buffers(r.run.final.kernel)
    assert set(roles) == {"rwork"} and roles["rwork"] != "rwork"        # the writer has rwork: rwork0
    assert re.search(rf"buffer {roles['rwork']}: veccalc f32\[", final)
    assert "rwork = " in final                                           # the writer's tile is still there
    src = r.spec.kernel_source
    assert f"w_ = {roles['rwork']}_u;" in src and "rwork_u" in src   # two names in C++ too
    notes = [n for level in r.run.levels for n in level.notes]
    assert any(n.startswith("prefetch:") for n in notes), notes         # _pf0 is the writer's: still prefetched



def test_work_buffers_are_found_by_role_and_other_buffers_of_their_form_renamed():
    """A buffer the input declared under a work buffer's form (lowered forms in the source) is renamed
    by bufferize, declaration and out= uses alike, so each role has one buffer: the one bufferize made."""
    from ascendcraft.lowering_passes.bufferize import rename_buffers
    k = parse("""
kernel k(x: gm f32[R, C]) -> (y: gm f32[R, C]):
    buffer rwork: veccalc f32[64]
    buffer xidx3: veccalc f32[64]
    buffer q: vecin f32[64] * 2
    for i in parallel(R):
        t = load(x[i, :], out=rwork)
        u = Muls(t, 2.0, out=xidx3)
        store(y[i, :], u)
""")
    assert work_buffers(k) == {"rwork": "rwork", "xidx": "xidx3"}      # q: a queue, b0: not a role
    renamed = rename_buffers(k.body, {"rwork": "b7", "xidx3": "b8"})
    assert work_buffers(parse("kernel k(x: gm f32[R]) -> (y: gm f32[R]):\n    buffer b7: veccalc f32[64]\n"
                              "    pass\n")) == {}
    text = "\n".join(repr(s) for s in renamed)
    assert "'rwork'" not in text and "'xidx3'" not in text and "out='b7'" in text and "Name(id='b8')" in text
    assert renamed[2] is k.body[2]       # untouched nodes are kept (the checker's types stay valid)


OP_B = """
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return torch.cumsum(x, dim=1), x.t() * 3.0, torch.nn.functional.max_pool1d(x.unsqueeze(1), 2, 2).squeeze(1)


rows, cols = 6, 40


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
"""

# The work buffers of scans (swork, sidx), windows (wwork, widx), strided copies (xwork, xidx) and
# tile slices (gidx), all taken by the writer's variables.
KERNEL_B = """
kernel names_b(x: gm f32[R, C]) -> (y: gm f32[R, C], z: gm f32[C, R], w: gm f32[R, CO]):
    for i in parallel(R):
        swork = load(x[i, :])
        sidx = cumsum(swork)
        store(y[i, :], sidx)
        gidx = load(x[i, :])
        store(y[i, 1:C], sidx[1:C] + 0.0 * gidx[1:C])
        wwork = load(x[i, :])
        widx = window_max(wwork, kernel=(2,), stride=(2,))
        store(w[i, :], widx)
    for j in parallel(C):
        xwork = load(x[:, j])
        xidx = xwork * 3.0
        store(z[j, :], xidx)
"""


def test_writer_names_of_every_work_buffer_lower_and_match_the_op(tmp_path):
    r = _lower_sim(tmp_path, KERNEL_B, OP_B, "names_b")
    roles = work_buffers(r.run.final.kernel)
    assert set(roles) == set(WORK_ROLES) - {"rwork"}
    assert all(name != role for role, name in roles.items()), roles     # each one renamed: swork0, ...
    src = r.spec.kernel_source
    assert f"BuildScanTables({roles['sidx']}_u," in src and f"BuildWindowTables({roles['widx']}_u," in src
    assert f"{roles['xwork']}_uBuf.Get<T>()" in src and f"{roles['xidx']}_uBuf.Get<uint32_t>()" in src


def test_select_placeholders_are_not_writer_names():
    """select's multi-step rules name earlier steps with placeholders no identifier can spell."""
    r = _run("""
kernel fz(x: gm f32[R, C]) -> (y: gm f32[R, C]):
    for i in parallel(R):
        _prev = load(x[i, :])
        _step1 = erf(_prev)
        _step0 = sigmoid(_step1) + mean(_prev)
        store(y[i, :], tanh(_step0) ** 3)
""", [_f32(3, 40)], [_f32(3, 40)])
    assert "_prev_u" in r.source and "_step0_u" in r.source


# ------------------------------------------------------------------ the CANN project

OP_P = """
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        y = x * 2.0 + stream
        return y, y.sum(dim=1)


rows, cols = 5, 40
stream = 0.5


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
"""

# C++ keywords and types (class, float), a Python keyword (class), a name the binding's host code
# declares (stream) and msopgen's aclnn API declares (stream), and self (ModelNew's forward)
KERNEL_P = """
kernel names_p(class: gm f32[V, T], stream: f32 = 1.0) -> (float: gm f32[V, T], self: gm f32[V]):
    const TILE = 16
    for i in parallel(V):
        acc = 0.0
        for j in range(0, T, TILE):
            t = load(class[i, j:j + TILE]) * 2.0 + stream
            store(float[i, j:j + TILE], t)
            acc = acc + sum(t)
        store(self[i], acc)
"""


def test_op_argument_names_per_language():
    assert [op_arg_name(n) for n in ("x", "class", "float", "stream", "int64_t", "x_u")] == \
        ["x", "class_u", "float_u", "stream_u", "int64_t_u", "x_u_u"]
    assert [py_name(n) for n in ("x", "class", "float", "self", "lambda", "x_u")] == \
        ["x", "class_u", "float", "self_u", "lambda_u", "x_u_u"]
    assert py_name("custom_ops_lib", {"custom_ops_lib"}) == "custom_ops_lib_u"


STUBS = Path(__file__).resolve().parents[1] / "codegen" / "stubs"


def test_cpp_keyword_tensor_names_get_a_cann_project(tmp_path, capsys):
    """Before: `lower` wrote no project ("tensor or attribute name(s) class, float, stream collide with
    C++ keywords or names the generated host code declares")."""
    (tmp_path / "op.py").write_text(OP_P)
    (tmp_path / "k.dsl").write_text(KERNEL_P)
    out = tmp_path / "out"
    code = main(["lower", str(tmp_path / "k.dsl"), "--op", str(tmp_path / "op.py"), "--out", str(out),
                 "--trials", "1", "--backend", "sim"])
    text = capsys.readouterr()
    assert code == 0, text.err
    assert "CANN project not generated" not in text.out and "project/ for CANN" in text.out
    project, op = out / "project", "names_p_custom"
    for rel in (f"{op}.json", f"op_host/{op}.cpp", f"op_kernel/{op}.cpp", "host/main.cpp",
                f"binding/{op}_binding.cpp", f"kernel/{op}_direct.cpp", "mkb/direct_launch.json", f"mkb/{op}.py"):
        assert (project / rel).is_file(), rel
    desc = json.loads((project / f"{op}.json").read_text())[0]
    assert [d["name"] for d in desc["input_desc"] + desc["output_desc"]] == ["class_u", "float_u", "self"]
    assert [a["name"] for a in desc["attr"]] == ["stream_u"]
    binding = (project / "binding" / f"{op}_binding.cpp").read_text()
    assert "names_p_custom(const at::Tensor& class_u, double stream_u)" in binding
    assert 'py::arg("class_u"), py::arg("stream") = 1.0' in binding
    # ModelNew keeps the DSL names Python can take (stream) and mangles the keyword (class)
    sub = json.loads((project / "mkb" / "direct_launch.json").read_text())
    model = next(s["content"] for s in sub["sources"] if s["path"] == "ModelNew.py")
    forward = next(n for n in ast.walk(ast.parse(model)) if isinstance(n, ast.FunctionDef) and n.name == "forward")
    # forward takes the reference's arguments as the harness passes them (by position or by the
    # reference's name, x) and picks the kernel's
    assert [a.arg for a in forward.args.args] == ["self"] and forward.args.vararg.arg == "args"
    assert forward.args.kwarg.arg == "kwargs"
    assert 'class_u = kwargs["x"] if "x" in kwargs else args[0] if len(args) > 0 else None' in model
    assert 'self.stream = float(attributes["stream"])' in model
    if shutil.which("g++") is None:
        return
    # the host C++ that names the tensors compiles (the stub headers of tests/codegen)
    (tmp_path / f"aclrtlaunch_{op}.h").write_text(
        "#pragma once\n#include <cstdint>\n#define ACLRT_LAUNCH_KERNEL(kernel) aclrtlaunch_##kernel\n"
        f'extern "C" uint32_t aclrtlaunch_{op}(uint32_t numBlocks, void* stream, void* a, void* b, void* c, '
        "void* workspace, void* tiling);\n")
    gxx = ["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Werror", f"-I{STUBS}"]
    host = [f"-I{tmp_path}", f"-I{project / 'kernel'}"]
    for cmd in (gxx + [f"-I{project / 'op_host'}", str(project / "op_host" / f"{op}.cpp")],
                gxx + host + [str(project / "host" / "main.cpp")],
                gxx + host + [str(project / "binding" / f"{op}_binding.cpp")]):
        run = subprocess.run(cmd, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr


# ------------------------------------------------------------------ check's warnings

OP_W = """
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return -x


def get_inputs():
    return [torch.randn(4, 32)]


def get_init_inputs():
    return []
"""

KERNEL_W = """kernel shadow(x: gm f32[B, N]) -> (y: gm f32[B, N]):
    for b in parallel(B):
        neg = load(x[b, :])
        store(y[b, :], neg(neg))
"""


def test_check_shows_the_checkers_warnings_in_text_and_json(tmp_path, capsys):
    (tmp_path / "op.py").write_text(OP_W)
    (tmp_path / "k.dsl").write_text(KERNEL_W)
    args = ["check", str(tmp_path / "k.dsl"), "--op", str(tmp_path / "op.py"), "--trials", "1"]
    assert main(args) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if "warning:" in line]
    assert len(lines) == 1, out
    assert re.fullmatch(r".*k\.dsl:4:24: warning: neg\(\.\.\.\) calls the op neg; the variable 'neg' .*", lines[0]), \
        lines[0]
    assert main(args + ["--json"]) == 0
    report = json.loads(capsys.readouterr().out)["result"]
    (w,) = report["warnings"]
    assert w["location"]["line"] == 4 and w["location"]["column"] == 24
    assert w["location"]["file"].endswith("k.dsl") and "calls the op neg" in w["message"] and w["hint"]
    assert w["text"] == lines[0]


def test_a_name_that_is_a_scalar_in_one_phase_and_a_tile_in_another_lowers_and_matches(tmp_path):
    """Process() declares each local once: the tile takes another spelling where it is a tile."""
    from compiled import compile_verified
    kernel = '''kernel k(x: gm f32[N, C]) -> (y: gm f32[N, C], z: gm f32[N, C]):
    for i in parallel(cdiv(N, 4)):
        l = i * 4
        store(y[l:l + 4, :], load(x[l:l + 4, :]) * 2.0)
    for i in parallel(N):
        l = load(x[i, :]) + 1.0
        store(z[i, :], l * l)
'''
    op = ("import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n    def forward(self, x):\n"
          "        return x * 2.0, (x + 1.0) * (x + 1.0)\n\n\nN = 10\nC = 40\n\n\ndef get_inputs():\n"
          "    return [torch.randn(N, C)]\n\n\n"
          "def get_init_inputs():\n    return []\n")
    k = compile_verified(tmp_path, kernel, op, trials=2)
    assert "l_tile0_u" in k.source and "int64_t l_u" in k.source
