"""User names in the generated C++ (codegen/names.py): every DSL identifier is mangled on its way
into C++, so op names, C++ keywords and types, AscendC names, emitter temporaries and the tiling
macros' template parameters (a dim ``V``) all lower, build and match the interpreter on the
simulator."""
from __future__ import annotations

from ascendcraft.cli import main
from ascendcraft.codegen.names import EMITTER_BUFFERS, SUFFIX, cpp_name, dsl_name, unmangle_text
from ascendcraft.dsl.parser import keywords
from ascendcraft.fuzz.differential import FuzzCase, OpDesc, TensorDesc, run_case

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
    for kept in keywords() | EMITTER_BUFFERS:     # CORES, inf, dtypes, rwork ...: the emitter reads them
        assert cpp_name(kept) == kept
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
