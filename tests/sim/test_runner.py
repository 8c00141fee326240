"""The Python runner: signatures, argument handling, build cache, build errors, isolation."""
from __future__ import annotations

import json

import numpy as np
import pytest

from ascendcraft.errors import UserError
from ascendcraft.sim import SimBuildError, build_kernel, run_kernel
from ascendcraft.sim import build as build_mod
from ascendcraft.sim.signature import parse_signature, registered_tiling_struct

from sim_helpers import assert_close, kernel_source, poisoned


def test_signature_kinds():
    params = parse_signature(kernel_source("add_custom.cpp"), "add_custom")
    assert [(p.name, p.kind) for p in params] == [("x", "gm"), ("y", "gm"), ("z", "gm"), ("workspace", "workspace"),
                                                  ("tiling", "tiling")]
    params = parse_signature(kernel_source("relu_direct.cpp"), "relu_kernel<half>")
    assert [(p.name, p.kind, p.ctype) for p in params][2:] == [
        ("totalLength", "scalar", "int64_t"), ("blockLength", "scalar", "int64_t"), ("tileSize", "scalar", "uint32_t")]
    params = parse_signature(kernel_source("bf16_affine.cpp"), "bf16_affine")
    assert params[0].elem_type == "bfloat16_t" and params[4].is_float


def test_signature_ignores_comments_and_calls():
    src = """
    // add_custom(a, b) is called below
    /* __global__ void add_custom(int nope) */
    extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, float alpha) { }
    void host() { add_custom(nullptr, 1.0f); }
    """
    params = parse_signature(src, "add_custom")
    assert [(p.name, p.kind) for p in params] == [("x", "gm"), ("alpha", "scalar")]
    with pytest.raises(UserError, match="no __global__ kernel named 'missing'"):
        parse_signature(src, "missing")


def test_registered_tiling_struct():
    assert registered_tiling_struct(kernel_source("add_custom_tiling.h")) == "TilingData"
    assert registered_tiling_struct("BEGIN_TILING_DATA_DEF(Foo)\nEND_TILING_DATA_DEF;") == "Foo"


def test_build_error_is_a_user_error_with_the_compiler_message():
    src = kernel_source("add_custom.cpp")  # DTYPE_X is never defined
    with pytest.raises(SimBuildError, match="DTYPE_X"):
        build_kernel(src, "add_custom", tiling_header=kernel_source("add_custom_tiling.h"))


def test_build_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCENDCRAFT_CACHE_DIR", str(tmp_path))
    src = kernel_source("planted_bugs.cpp")
    first = build_kernel(src, "planted")
    second = build_kernel(src, "planted")
    assert not first.cached and second.cached
    assert first.exe == second.exe and first.exe.is_relative_to(tmp_path)
    other = build_kernel("// another version\n" + src, "planted")
    assert other.key != first.key


def test_builds_use_the_precompiled_header_whatever_the_macros():
    # GCC silently parses the headers again when a macro defined before the precompiled header
    # differs from its build: every macro the runner and the caller write must come after it
    builds = [build_kernel(kernel_source("planted_bugs.cpp"), "planted", defines={"ASC_SIM_THREADS": 1}),
              build_kernel(kernel_source("add_custom.cpp"), "add_custom", defines={"DTYPE_X": "float", "DTYPE_Y": "float"},
                           tiling_header=kernel_source("add_custom_tiling.h"))]
    for art in builds:
        meta = json.loads((art.exe.parent / "meta.json").read_text())
        assert meta["precompiled"], (art.exe.parent / "build.log").read_text()


def test_a_build_that_parsed_the_headers_is_recorded_as_not_precompiled(tmp_path, monkeypatch):
    # the other side of the check above: no precompiled header on the include path
    monkeypatch.setattr(build_mod, "_precompiled_header", lambda cxxflags: tmp_path)
    art = build_kernel("// parsed\n" + kernel_source("planted_bugs.cpp"), "planted")
    meta = json.loads((art.exe.parent / "meta.json").read_text())
    assert not meta["precompiled"] and art.warnings == []


def test_arguments_full_length_or_without_workspace_and_tiling(rng):
    art = build_kernel("#define DTYPE_X float\n" + kernel_source("add_custom.cpp"), "add_custom",
                       tiling_header=kernel_source("add_custom_tiling.h"))
    n = 2 * 2 * 2 * 64
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    tiling = {"totalLength": n, "tileNum": 2}
    a = run_kernel(art, [x, y, poisoned(n, np.float32)], tiling=tiling, block_dim=2)
    b = run_kernel(art, [x, y, poisoned(n, np.float32), None, None], tiling=tiling, block_dim=2)
    assert a.ok and b.ok
    assert_close(a.outputs[2], x + y)
    assert np.array_equal(a.outputs[2], b.outputs[2])
    with pytest.raises(UserError, match="takes 5 parameters"):
        run_kernel(art, [x, y], tiling=tiling, block_dim=2)
    with pytest.raises(UserError, match="GM pointer"):
        run_kernel(art, [x, y, 3], tiling=tiling, block_dim=2)


def test_unknown_tiling_field_is_reported(rng):
    art = build_kernel("#define DTYPE_X float\n" + kernel_source("add_custom.cpp"), "add_custom",
                       tiling_header=kernel_source("add_custom_tiling.h"))
    n = 2 * 2 * 64
    res = run_kernel(art, [np.ones(n, np.float32)] * 3, tiling={"totalLength": n, "tileNum": 1, "tileLen": 3},
                     block_dim=2)
    assert [d.rule for d in res.errors] == ["tiling-field"]
    assert "tileLen" in res.errors[0].message


def test_memory_limit_is_enforced():
    """A kernel whose GM does not fit the child's address-space limit fails cleanly."""
    art = build_kernel(kernel_source("crash_hang.cpp"), "crash_kernel")
    big = np.zeros(300 * 1024 * 1024 // 4, np.float32)  # 300 MB of GM
    res = run_kernel(art, [big, 16], block_dim=1, memory_limit_mb=128)
    assert not res.ok
    assert res.crash is not None and "allocate" in res.crash


def test_tiling_dict_fills_scalars_arrays_and_nested_structs():
    art = build_kernel(kernel_source("tiling_echo.cpp"), "tiling_echo",
                       tiling_header=kernel_source("tiling_echo_tiling.h"))
    assert art.warnings == []
    tiling = {"count": 123456789012, "scale": 0.75, "dims": [3, 65535, 7], "inner": {"M": 640, "baseK": 64},
              "last": -5}
    res = run_kernel(art, [poisoned(8, np.float32)], tiling=tiling, block_dim=1)
    assert res.ok, res.report()
    np.testing.assert_array_equal(res.outputs[0], np.array([123456789012, 0.75, 3, 65535, 7, 640, 64, -5],
                                                           dtype=np.float32))
    names = [f["name"] for f in res.tiling_layout]
    assert names[:3] == ["count", "scale", "dims"] and names[-1] == "last"
    assert "inner.M" in names and len(names) == 3 + 50 + 1
    offsets = {f["name"]: f["offset"] for f in res.tiling_layout}
    assert offsets["count"] == 0 and offsets["scale"] == 8 and offsets["dims"] == 12
