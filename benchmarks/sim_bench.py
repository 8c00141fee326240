"""Benchmarks of the AscendC CPU simulator (ascendcraft.sim).

  python3 benchmarks/sim_bench.py            # full run (about a minute)
  python3 benchmarks/sim_bench.py --quick    # smaller elementwise size

Measures: simulator throughput on a double-buffered elementwise Add next to NumPy doing
the same math; build time cold (empty cache), of a new kernel (the precompiled header and the
runtime cached) and warm (cached); wall time of the cost-only run of ReLU on a 4096 x 393216
fp32 tensor on 910B2, and its modelled numbers; the modelled time of an fp16 Matmul API kernel
(4096 x 6144 x 4096 on a 4 x 6 grid of single-core blocks).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ascendcraft.sim import build_kernel, gm, run_kernel  # noqa: E402
from timing import best  # noqa: E402  benchmarks/timing.py (the script's own folder)

KERNELS = ROOT / "tests" / "sim" / "kernels"


def _src(name: str) -> str:
    return (KERNELS / name).read_text()


def bench_build() -> dict:
    src = "#define DTYPE_X float\n" + _src("add_custom.cpp")
    hdr = _src("add_custom_tiling.h")
    with tempfile.TemporaryDirectory() as d:
        old = os.environ.get("ASCENDCRAFT_CACHE_DIR")
        os.environ["ASCENDCRAFT_CACHE_DIR"] = d
        try:
            t0 = time.perf_counter()
            build_kernel(src, "add_custom", tiling_header=hdr)
            cold = time.perf_counter() - t0
            t0 = time.perf_counter()
            art = build_kernel(src, "add_custom", tiling_header=hdr)
            warm = time.perf_counter() - t0
            assert art.cached
            new = []   # kernels the cache has not seen, the precompiled header and the runtime built
            for i in range(3):
                t0 = time.perf_counter()
                build_kernel(f"// variant {i}\n" + src, "add_custom", tiling_header=hdr)
                new.append(time.perf_counter() - t0)
        finally:
            if old is None:
                os.environ.pop("ASCENDCRAFT_CACHE_DIR", None)
            else:
                os.environ["ASCENDCRAFT_CACHE_DIR"] = old
    return {"cold_build_s": cold, "warm_build_s": warm, "new_kernel_build_s": sorted(new)[1]}


def bench_elementwise(n_per_block: int, blocks: int = 48, repeat: int = 3) -> dict:
    art = build_kernel("#define DTYPE_X float\n" + _src("add_custom.cpp"), "add_custom",
                       tiling_header=_src("add_custom_tiling.h"))
    n = n_per_block * blocks
    tile = 8192
    tile_num = n_per_block // (2 * tile)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    z = np.empty(n, np.float32)
    res = {}

    def sim():
        r = run_kernel(art, [x, y, z], tiling={"totalLength": n, "tileNum": tile_num}, block_dim=blocks)
        assert r.ok, r.report()
        res["r"] = r

    t_sim = best(sim, repeat)
    assert np.array_equal(res["r"].outputs[2], x + y)
    t_np = best(lambda: np.add(x, y, out=z), repeat * 3)
    return {"elements": n, "sim_s": t_sim, "numpy_s": t_np, "sim_melem_per_s": n / t_sim / 1e6,
            "numpy_melem_per_s": n / t_np / 1e6, "slowdown_vs_numpy": t_sim / t_np,
            "modelled_us": res["r"].cost.time_us}


def bench_cost_only(repeat: int = 3) -> dict:
    art = build_kernel(_src("relu_direct.cpp"), "relu_kernel<float>")
    rows, cols, blocks = 4096, 393216, 48
    n = rows * cols
    out = {}

    def run():
        r = run_kernel(art, [gm(n, np.float32), gm(n, np.float32), n, n // blocks, 8192], block_dim=blocks,
                       cost_only=True)
        assert r.ok, r.report()
        out["r"] = r

    t = best(run, repeat)
    c = out["r"].cost
    return {"shape": [rows, cols], "cost_only_s": t, "modelled_us": c.time_us, "hbm_roofline_us": c.hbm_roofline_us,
            "ratio_to_roofline": c.time_us / c.hbm_roofline_us, "bound": c.bound,
            "instructions": sum(p.instructions for p in c.per_core)}


def bench_double_buffer() -> dict:
    out = {}
    for bn in (1, 2):
        src = f"#define BUFFER_NUM {bn}\n#define DTYPE_X float\n" + _src("add_custom.cpp")
        art = build_kernel(src, "add_custom", tiling_header=_src("add_custom_tiling.h"))
        for tile in (1024, 8192):
            n = 48 * tile * 128
            r = run_kernel(art, [gm(n, np.float32)] * 3, tiling={"totalLength": n, "tileNum": 128 // bn},
                           block_dim=48, cost_only=True)
            out[f"BUFFER_NUM={bn}, {tile * 4 // 1024} KB tiles, {n:,} floats per tensor"] = r.cost.time_us
    return out


def bench_matmul() -> dict:
    """Matmul API, fp16 in / fp32 out, 24 single-core blocks of 1024 x 1024, base 128 x 256 x 64."""
    art = build_kernel(_src("matmul_custom.cpp"), "matmul_custom", tiling_header=_src("matmul_custom_tiling.h"))
    m, n, k = 4096, 6144, 4096
    tiling = {"cubeTilingData": {"usedCoreNum": 24, "M": m, "N": n, "Ka": k, "Kb": k, "singleCoreM": 1024,
                                 "singleCoreN": 1024, "singleCoreK": k, "baseM": 128, "baseN": 256, "baseK": 64,
                                 "depthA1": 4, "depthB1": 4}}
    r = run_kernel(art, [gm((m, k), np.float16), gm((k, n), np.float16), gm((n,), np.float32),
                         gm((m, n), np.float32)], tiling=tiling, block_dim=24, cost_only=True)
    c = r.cost
    tflops = 2 * m * n * k / (c.time_us * 1e-6) / 1e12
    return {"shape": [m, n, k], "modelled_us": c.time_us, "tflops": tflops,
            "of_fp16_peak": c.cube_roofline_us / c.body_us, "bound": c.bound, "gm_bytes": c.gm_bytes}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    results = {
        "build": bench_build(),
        "elementwise_add": bench_elementwise(1 << 17 if args.quick else 1 << 20),
        "cost_only_relu": bench_cost_only(),
        "double_buffer_modelled_us": bench_double_buffer(),
        "matmul_fp16": bench_matmul(),
    }
    if args.json:
        print(json.dumps(results, indent=2))
        return
    b, e, c = results["build"], results["elementwise_add"], results["cost_only_relu"]
    print(f"build: cold {b['cold_build_s']:.2f} s (empty cache), another kernel {b['new_kernel_build_s']:.2f} s "
          f"(median of 3), warm (cached) {b['warm_build_s'] * 1e3:.1f} ms")
    print(f"elementwise add fp32, {e['elements']:,} elements on 48 blocks: simulator {e['sim_s']:.3f} s "
          f"({e['sim_melem_per_s']:.0f} M elem/s), NumPy {e['numpy_s'] * 1e3:.2f} ms "
          f"({e['numpy_melem_per_s']:.0f} M elem/s); simulator/NumPy = {e['slowdown_vs_numpy']:.0f}x")
    print(f"cost-only ReLU 4096x393216 fp32 on 910B2: {c['cost_only_s']:.3f} s wall, modelled {c['modelled_us']:.1f} us "
          f"vs HBM roofline {c['hbm_roofline_us']:.1f} us (x{c['ratio_to_roofline']:.3f}), {c['bound']}-bound, "
          f"{c['instructions']:,} instructions")
    for k, v in results["double_buffer_modelled_us"].items():
        print(f"modelled double-buffering, add on 48 blocks, {k}: {v:.1f} us")
    mm = results["matmul_fp16"]
    print(f"modelled Matmul API fp16 {'x'.join(map(str, mm['shape']))} on 24 AIC: {mm['modelled_us']:.1f} us = "
          f"{mm['tflops']:.0f} TFLOPS ({mm['of_fp16_peak']:.0%} of the fp16 peak, body only), {mm['bound']}-bound, "
          f"{mm['gm_bytes'] / 2**20:.0f} MiB of HBM traffic")
    print(f"(times: best of repeats; python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
