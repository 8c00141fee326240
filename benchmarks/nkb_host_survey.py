"""How many CANN projects' op_host sources build and describe on the simulator's host harness.

    python3 benchmarks/nkb_host_survey.py <folder of NPUKernelBench answers> [--jobs 2] [--json out.json] [--tiling]

Every folder under the corpus path that holds an ``op_host/`` folder is one project (NPUKernelBench's
``tasks/level*/<family>/<Op>/answer/0``, copied out of the repository). Each is built and described
(``ascendcraft.sim.host.describe_project``); failures are classified by cause: a header the simulator does
not provide, a host API it does not provide (by name), or other. With ``--tiling`` each described op's
TilingFunc also runs on a made-up case (every input [8, 1024] of its OpDef's first dtype, optional inputs
absent, two tensors for a dynamic one, outputs inferred or like the first input, attributes at their
defaults, required ones 1): how many run to the end, not whether the case is one the op accepts. Not
needed by the tests.
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ascendcraft.errors import AscendcraftError  # noqa: E402
from ascendcraft.sim.host import describe_project, run_tiling  # noqa: E402
from ascendcraft.sim.host_project import dtype_of_ge_name  # noqa: E402
from ascendcraft.sim.host_build import HostBuildError  # noqa: E402
from ascendcraft.sim.host_run import HostRunError  # noqa: E402


def made_up_case(sig) -> dict:
    def spec(p):
        d = dtype_of_ge_name(p.dtypes[0]) if p.dtypes else None
        return {"shape": [8, 1024], "dtype": d.name if d else "float32"}
    inputs = [None if p.param_type == "OPTIONAL" else [spec(p), spec(p)] if p.param_type == "DYNAMIC" else spec(p)
              for p in sig.inputs]
    outputs = "infer" if sig.infer_shape and all(p.param_type != "DYNAMIC" for p in sig.outputs) else \
        [{"shape": [8, 1024], "dtype": spec(p)["dtype"]} for p in sig.outputs]
    one = {"int": 1, "float": 1.0, "bool": True, "str": "", "list_int": [1], "list_float": [1.0], "list_bool": [True]}
    attrs = {a.name: one.get(a.type, 1) for a in sig.attrs if a.required and a.default is None and a.type in one}
    return {"inputs": inputs, "outputs": outputs, "attrs": attrs}


def survey_one(project: Path, tiling: bool = False) -> dict:
    t0 = time.perf_counter()
    row = {"project": str(project), "ok": False}
    try:
        sig = describe_project(project)
        row.update(ok=True, op=sig.name, inputs=len(sig.inputs), outputs=len(sig.outputs), attrs=len(sig.attrs),
                   tiling=sig.tiling, infer_shape=sig.infer_shape, skipped=list(sig.skipped_sources))
        if tiling:
            try:
                t = run_tiling(project, made_up_case(sig))
                row.update(tiling_ran=True, block_dim=t.block_dim, tiling_key=t.tiling_key)
            except AscendcraftError as e:
                row.update(tiling_ran=False, tiling_error=e.message[:200])
    except HostBuildError as e:
        if e.missing_headers:
            row.update(cause="missing header", detail=sorted({h for h, _, _ in e.missing_headers}))
        elif e.missing_apis:
            row.update(cause="missing API", detail=sorted({a for a, _, _ in e.missing_apis}))
        else:
            row.update(cause="other", detail=[e.message[:300]])
    except HostRunError as e:
        row.update(cause="other", detail=[f"run: {e.message[:300]}"])
    except AscendcraftError as e:
        row.update(cause="other", detail=[e.message[:300]])
    row["seconds"] = round(time.perf_counter() - t0, 2)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--tiling", action="store_true", help="also run each TilingFunc on a made-up case")
    args = ap.parse_args()
    projects = sorted(p.parent for p in args.corpus.rglob("op_host") if p.is_dir())
    print(f"{len(projects)} projects under {args.corpus}", flush=True)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda p: survey_one(p, args.tiling), projects))
    ok = [r for r in rows if r["ok"]]
    print(f"\nbuild + describe: {len(ok)} of {len(rows)} ({time.perf_counter() - t0:.0f} s)")
    causes = collections.Counter(r["cause"] for r in rows if not r["ok"])
    for cause, n in causes.most_common():
        print(f"  {cause}: {n}")
        names = collections.Counter(d for r in rows if not r["ok"] and r["cause"] == cause for d in r["detail"])
        for name, k in names.most_common(40):
            print(f"      {k:3d}  {name}")
    for r in rows:
        if not r["ok"]:
            print(f"  FAIL {Path(r['project']).relative_to(args.corpus)}: {r['cause']}: {'; '.join(r['detail'])[:200]}")
    if args.tiling:
        ran = [r for r in ok if r.get("tiling_ran")]
        print(f"\nTilingFunc on a made-up case: {len(ran)} of {len(ok)} ran to the end")
        for r in ok:
            if not r.get("tiling_ran"):
                print(f"  {Path(r['project']).relative_to(args.corpus)}: {r.get('tiling_error', '')[:160]}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
