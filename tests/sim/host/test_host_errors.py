"""Host code that fails: a compile error naming the host API or header the simulator does not provide and its
line; a TilingFunc that crashes, hangs, opens a file, exits, throws, returns GRAPH_FAILED or overflows the tiling
buffer, stopped by the sandbox or the time limit and reported with what was running."""
from __future__ import annotations

from pathlib import Path

import pytest

from ascendcraft.errors import UserError
from ascendcraft.sim.build import sandbox_support
from ascendcraft.sim.host import describe_project, run_tiling
from ascendcraft.sim.host_build import HostBuildError
from ascendcraft.sim.host_run import HostRunError

BAD_HOST = Path(__file__).parent / "projects" / "bad_host"
SANDBOXED = sandbox_support()[0]

HEAD = """#include "register/op_def_registry.h"
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
"""
TAIL = """    context->SetBlockDim(1);
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
namespace ops {
class Probe : public OpDef {
public:
    explicit Probe(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
    }
};
OP_ADD(Probe);
}  // namespace ops
"""


def _project(tmp_path, body: str, prelude: str = "") -> Path:
    (tmp_path / "op_host").mkdir()
    (tmp_path / "op_host" / "probe.cpp").write_text(prelude + HEAD + body + TAIL)
    return tmp_path


def _case(mode: int) -> dict:
    return {"inputs": [{"shape": [16], "dtype": "float32"}], "outputs": [{"shape": [16], "dtype": "float32"}],
            "attrs": {"mode": mode}}


def test_a_normal_tiling_runs():
    t = run_tiling(BAD_HOST, _case(0))
    assert t.block_dim == 1 and t.tiling == (16).to_bytes(4, "little") and "tiling for 16 elements" in t.log


@pytest.mark.parametrize("mode, pattern", [
    (1, r"crashed in TilingFunc: SIGSEGV"),
    (4, r"BadHost: TilingFunc returned GRAPH_FAILED"),
    (5, r"called exit\(\) in TilingFunc"),
    (6, r"TilingFunc threw std::runtime_error: bad shape"),
    (7, r"HugeTilingData::SaveToBuffer: the tiling struct has 72000 bytes and the buffer 65536"),
])
def test_failing_tiling_functions_are_reported(mode, pattern):
    with pytest.raises(HostRunError, match=pattern) as err:
        run_tiling(BAD_HOST, _case(mode))
    assert err.value.phase == "TilingFunc"


def test_a_tiling_function_that_never_ends_meets_the_time_limit():
    with pytest.raises(HostRunError, match=r"more than its 1 s of CPU time in TilingFunc"):
        run_tiling(BAD_HOST, _case(2), timeout_s=1)


@pytest.mark.skipif(not SANDBOXED, reason="libseccomp is not installed")
def test_the_sandbox_stops_a_tiling_function_that_opens_a_file():
    with pytest.raises(HostRunError, match=r"forbidden system call \(openat\) in TilingFunc") as err:
        run_tiling(BAD_HOST, _case(3))
    assert err.value.violation == "openat"


@pytest.mark.skipif(not SANDBOXED, reason="libseccomp is not installed")
def test_static_initializers_run_sandboxed(tmp_path):
    prelude = '#include <cstdio>\nstatic FILE* g_leak = std::fopen("/etc/hostname", "r");\n'
    project = _project(tmp_path, "    (void)g_leak;\n", prelude)
    with pytest.raises(HostRunError, match=r"forbidden system call \(openat\) in static initialization"):
        describe_project(project)


def test_an_unsupported_host_api_is_named_with_its_line(tmp_path):
    project = _project(tmp_path, "    context->GetFooBar();\n")
    with pytest.raises(HostBuildError, match=r"unsupported host API gert::TilingContext::GetFooBar at "
                                             r"op_host/probe.cpp:5") as err:
        describe_project(project)
    assert err.value.missing_apis[0] == ("gert::TilingContext::GetFooBar", "op_host/probe.cpp", 5)


def test_a_missing_header_is_named(tmp_path):
    project = _project(tmp_path, "", '#include "graph/utils/op_desc_utils.h"\n')
    with pytest.raises(HostBuildError, match=r"unsupported host header <graph/utils/op_desc_utils.h> at "
                                             r"op_host/probe.cpp:1"):
        describe_project(project)


def test_a_project_without_an_opdef(tmp_path):
    (tmp_path / "op_host").mkdir()
    (tmp_path / "op_host" / "empty.cpp").write_text('#include "register/op_def_registry.h"\n')
    with pytest.raises(UserError, match="register no OpDef"):
        describe_project(tmp_path)
    with pytest.raises(UserError, match="has no op_host folder"):
        describe_project(tmp_path / "op_host")
