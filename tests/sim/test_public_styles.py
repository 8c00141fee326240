"""Foreign AscendC sources in the public styles build and run unchanged on the simulator.

The kernels in kernels/public_style_*.cpp are written as a user would write them for CANN:
direct launch with the host program in the same file, a custom operator with GET_TILING_DATA,
DTYPE_* macros and TILING_KEY_IS, and the Matmul API with TCubeTiling from tiling/tiling_api.h.
See docs/simulator.md, "Foreign kernels".
"""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

from ascendcraft.sim import build_kernel, run_kernel
from ascendcraft.sim.build import INCLUDE_DIR, rewrite_host_launches

from sim_helpers import assert_close, kernel_source, poisoned


def _line_of(src: str, needle: str) -> int:
    return next(i for i, line in enumerate(src.splitlines(), 1) if needle in line)


# ----------------------------------------------------------------------------- direct launch
def test_direct_launch_source_with_host_main_runs_unchanged(rng):
    src = kernel_source("public_style_direct.cpp")
    art = build_kernel(src, "axpy_direct")
    assert art.warnings == []
    assert [p.name for p in art.params] == ["x", "y", "z", "totalLength", "scale"]
    blocks, tile = 8, 512  # TILE = 64 * ONE_BLK_SIZE / sizeof(float)
    n = blocks * 3 * tile
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    res = run_kernel(art, [x, y, poisoned(n, np.float32), n, 2.5], block_dim=blocks, outputs=["z"])
    assert res.ok, res.report()
    assert res.diagnostics == []  # the passing ASSERTs report nothing
    assert_close(res.outputs[2], 2.5 * x + y)


def test_failing_assert_is_a_located_error(rng):
    src = kernel_source("public_style_direct.cpp")
    art = build_kernel(src, "axpy_direct")
    n = 8 * 512 + 8  # not a whole number of tiles per block: the second ASSERT in Init fails
    x = rng.standard_normal(n).astype(np.float32)
    res = run_kernel(art, [x, x.copy(), poisoned(n, np.float32), n, 1.0], block_dim=8)
    assert not res.ok
    errs = [d for d in res.errors if d.rule == "assert"]
    assert len(errs) == 1, res.report()
    d = errs[0]
    assert d.api == "ASSERT" and d.block == 0 and d.file == "kernel.cpp"
    assert d.line == _line_of(src, "ASSERT(totalLength %")
    assert "totalLength % (AscendC::GetBlockNum() * TILE) == 0" in d.message
    assert res.crash is None


def test_cpu_debug_style_host_branches_compile_and_kernel_runs(rng):
    # host main with an #ifdef ASCENDC_CPU_DEBUG branch (tikicpulib, ICPU_RUN_KF), an AscendCL
    # branch with the generated aclrtlaunch_<kernel>.h header, and a host platform query
    src = kernel_source("public_style_direct_cpudebug.cpp")
    art = build_kernel(src, "abs_sub_half")
    assert art.warnings == []
    blocks, blk = 4, 1024
    x = rng.standard_normal(blocks * blk).astype(np.float16)
    res = run_kernel(art, [x, poisoned(blocks * blk, np.float16), blk, 0.5], block_dim=blocks, outputs=["y"])
    assert res.ok, res.report()
    assert_close(res.outputs[1], (np.abs(x.astype(np.float32)) - 0.5).astype(np.float16), np.float16)


def test_host_launch_rewrite_keeps_lines_and_skips_comments():
    src = ("void f(void* s, uint8_t* x) {\n"
           "    k<<<8, nullptr, s>>>(x,\n"
           "        x); // not <<<this>>>(one)\n"
           "    ns::tk<half> <<< 2, nullptr, s >>> ();\n"
           "    const char* t = \"a<<<b>>>(c)\";\n"
           "}\n")
    out = rewrite_host_launches(src)
    assert out.count("\n") == src.count("\n")
    lines = out.splitlines()
    assert lines[1].strip() == "::asc_sim_host::launch(k, 8, nullptr, s, x, x)"
    assert "// not <<<this>>>(one)" in lines[2]
    assert lines[3].strip() == "::asc_sim_host::launch(ns::tk<half>, 2, nullptr, s);"
    assert lines[4] == src.splitlines()[4]  # string literals are left alone
    assert rewrite_host_launches("int a = b << c;\n") == "int a = b << c;\n"


# ----------------------------------------------------------------------------- custom operator
@pytest.mark.parametrize("dtype,np_dtype", [("float", np.float32), ("half", np.float16)])
@pytest.mark.parametrize("key", [1, 2])
def test_custom_op_dtype_macros_and_tiling_key(rng, dtype, np_dtype, key):
    art = build_kernel(kernel_source("public_style_custom_op.cpp"), "scale_shift_custom",
                       tiling_header=kernel_source("public_style_custom_op_tiling.h"),
                       defines={"DTYPE_X": dtype, "DTYPE_Y": dtype})
    assert art.warnings == []
    blocks, n = 5, 5 * 1000 + 37  # a block share that is not a whole number of tiles
    x = rng.standard_normal(n).astype(np_dtype)
    res = run_kernel(art, [x, poisoned(n, np_dtype)],
                     tiling={"totalLength": n, "tileLength": 256, "scale": 1.5, "shift": -0.25},
                     block_dim=blocks, tiling_key=key, outputs=["y"])
    assert res.ok, res.report()
    ref = x.astype(np.float32) * 1.5 - 0.25
    if key == 2:
        ref = np.maximum(ref, 0)
    assert_close(res.outputs[1], ref.astype(np_dtype), np_dtype)


def test_custom_op_without_dtype_macros_is_a_build_error():
    from ascendcraft.sim.build import SimBuildError
    with pytest.raises(SimBuildError, match="DTYPE_X"):
        build_kernel(kernel_source("public_style_custom_op.cpp"), "scale_shift_custom",
                     tiling_header=kernel_source("public_style_custom_op_tiling.h"))


# ----------------------------------------------------------------------------- Matmul API
def _host_tiling(tmp_path) -> dict:
    """Compile and run public_style_matmul_host.cpp (the host tiling sequence of tiling_api.h)."""
    (tmp_path / "host.cpp").write_text('#include "tiling_header.h"\n' + kernel_source("public_style_matmul_host.cpp"))
    (tmp_path / "tiling_header.h").write_text(kernel_source("public_style_matmul_tiling.h"))
    proc = subprocess.run(["g++", "-std=c++17", "-Wall", f"-I{INCLUDE_DIR}", f"-I{tmp_path}", "host.cpp", "-o", "host"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr
    out = subprocess.run([str(tmp_path / "host")], capture_output=True, text=True, check=True).stdout
    return {k: int(v) for k, v in (line.split() for line in out.splitlines())}


@pytest.mark.parametrize("defines", [{}, {"CUSTOM_ASCEND310P": 1}])
def test_matmul_api_with_tiling_api_header(rng, tmp_path, defines):
    host = _host_tiling(tmp_path)
    assert host["ub"] == 192 * 1024 and host["aic"] == 24
    M, N, K = host["M"], host["N"], host["Ka"]
    assert (M, N, K, host["isBias"]) == (100, 200, 72, 1)
    cube = {k: host[k] for k in ("usedCoreNum", "M", "N", "Ka", "Kb", "singleCoreM", "singleCoreN", "singleCoreK",
                                 "baseM", "baseN", "baseK", "isBias")}
    assert cube["usedCoreNum"] <= 8 and cube["singleCoreM"] % 16 == 0 and cube["singleCoreN"] % 16 == 0
    art = build_kernel(kernel_source("public_style_matmul.cpp"), "matmul_bias_custom",
                       tiling_header=kernel_source("public_style_matmul_tiling.h"), defines=defines)
    assert art.warnings == []
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    bias = rng.standard_normal(N).astype(np.float32)
    res = run_kernel(art, [a, b, bias, poisoned((M, N), np.float32)], tiling={"cubeTilingData": cube, "alpha": 1.0},
                     block_dim=8, outputs=["c"])
    assert res.ok, res.report()
    assert_close(res.outputs[3], a.astype(np.float32) @ b.astype(np.float32) + bias)
