"""The ``ascendcraft sim-op`` command line: a CANN custom-operator project run on the simulator,
its host code included, verified against an op file or run on one case (docs/simulator.md,
"CANN projects")."""
from __future__ import annotations

import json
from pathlib import Path

from ..acceptance import PRECISIONS
from ..distributions import DEFAULT_TRIALS, INPUT_POLICIES
from ..errors import UserError


def add_parser(sub, parents=()) -> None:
    s = sub.add_parser(
        "sim-op", parents=list(parents), help="run a CANN custom-operator project (op_host + op_kernel) on the "
        "simulator: its TilingFunc decides the tiling; verified against an op file",
        description="Build a CANN custom-operator project's op_host against the simulator's host headers, run "
                    "its TilingFunc for each case, then build and run op_kernel with that tiling, block dim, tiling "
                    "key and workspace. With --op the outputs are verified against the op file as check verifies "
                    "a kernel; with --case one case runs on seeded random inputs. See docs/simulator.md.")
    s.add_argument("project", help="the project folder (op_host/ and op_kernel/), or a direct-launch operator: "
                   "MultiKernelBench's ascendc_direct_launch JSON document (sources, a pybind11 binding, ModelNew.py)")
    what = s.add_mutually_exclusive_group(required=True)
    what.add_argument("--op", help="the op file the operator must match (its forward's tensors are the OpDef's "
                      "inputs in order; its attributes bind by name)")
    what.add_argument("--case", metavar="CASE.json", help="one case without an op file: {\"inputs\": [{\"shape\": "
                      "[..], \"dtype\": \"float16\"} or null, ...], \"attrs\": {name: value}}")
    s.add_argument("--chip", default="910B2", help="chip profile (910B1 910B2 910B3 910B4 310P3)")
    s.add_argument("--trials", type=int, default=DEFAULT_TRIALS, help=f"verification trials (default {DEFAULT_TRIALS})")
    s.add_argument("--inputs", choices=INPUT_POLICIES, default="adversarial", help="verification inputs (as check)")
    s.add_argument("--precision", choices=PRECISIONS, default="ours", help="whose acceptance judges (as check)")
    s.add_argument("--seed", type=int, default=0, help="seed of the first trial (and of --case's inputs)")
    s.add_argument("--max-bytes", type=int, default=64 << 20,
                   help="verify on reduced shapes when the op's tensors exceed this many bytes (default 64 MiB)")
    s.add_argument("--no-model", action="store_true", help="skip the modeled time at the op's real shapes")
    s.add_argument("--json", action="store_true", help="print one JSON document instead of the summary")


def run(args) -> int:
    from ..cli import emit, emit_json
    project = Path(args.project)
    direct = project.is_file()
    if not direct and not project.is_dir():
        raise UserError(f"{args.project}: no such project folder or file",
                        hint="a CANN project holds op_host/ and op_kernel/; a direct-launch operator is a JSON file")
    if direct and args.op is None:
        raise UserError("a direct-launch operator is checked against an op file: pass --op", hint="--case is for "
                        "custom-operator projects")
    if args.op is not None:
        options = dict(trials=args.trials, seed=args.seed, chip=args.chip, max_bytes=args.max_bytes,
                       inputs=args.inputs, precision=args.precision, model_time=not args.no_model,
                       progress=args.progress.callback)
        if direct:
            from ..inputs import check_file
            from .direct_check import check_direct
            from .direct_reply import extract_direct
            check_file(project, "direct-launch operator")
            text = project.read_text(encoding="utf-8", errors="replace")
            result = check_direct(extract_direct(text), args.op, **options)
        else:
            from .check import check_project
            result = check_project(project, args.op, **options)
        code = 0 if result.passed else 1
        if args.json:
            emit_json(args, "passed" if code == 0 else "failed", code, result.to_json())
        else:
            emit(args, result.summary())
        return code
    doc = run_case(project, read_case(args.case), chip=args.chip, seed=args.seed)
    code = 0 if doc["ok"] else 1
    if args.json:
        emit_json(args, "passed" if code == 0 else "failed", code, doc)
    else:
        emit(args, case_summary(doc))
    return code


def read_case(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            case = json.load(f)
    except OSError as err:
        raise UserError(f"--case {path}: {err.strerror or err}") from None
    except ValueError as err:
        raise UserError(f"--case {path} is not JSON: {err}") from None
    if not isinstance(case, dict) or not isinstance(case.get("inputs"), list):
        raise UserError(f"--case {path}: a case is an object with an \"inputs\" list",
                        hint='{"inputs": [{"shape": [8, 1024], "dtype": "float32"}], "attrs": {"alpha": 1.0}}')
    return case


def run_case(project: Path, case: dict, *, chip: str, seed: int) -> dict:
    """Run one case on seeded random inputs (standard normal floats, small integers, random bools)."""
    import numpy as np
    from ..sim.host_op import run_op
    rng = np.random.default_rng(seed)
    inputs, dtypes = [], {}
    for i, spec in enumerate(case["inputs"]):
        if spec is None:
            inputs.append(None)
            continue
        try:
            shape, dtype = tuple(int(d) for d in spec["shape"]), str(spec["dtype"])
        except (KeyError, TypeError, ValueError):
            raise UserError(f"--case input {i}: {{\"shape\": [..], \"dtype\": \"float16\"}} or null, not {spec!r}") from None
        inputs.append(_random(rng, shape, dtype))
        if dtype == "bfloat16":
            dtypes[i] = "bfloat16"
    attrs = case.get("attrs") or {}
    if not isinstance(attrs, dict):
        raise UserError("--case attrs is an object mapping an attribute's name to its value")
    from ..sim.host import describe_project
    sig = describe_project(project)
    named = {sig.inputs[i].name: v for i, v in dtypes.items() if i < len(sig.inputs)}
    r = run_op(project, inputs, attrs, chip=chip, dtypes=named)
    res = r.result
    return {"operator": sig.name, "ok": r.ok, "block_dim": r.tiling.block_dim, "tiling_key": r.tiling.tiling_key,
            "workspace_sizes": list(r.tiling.workspace_sizes), "tiling": r.tiling_fields,
            "outputs": [{"name": p.name, "shape": list(o.shape), "dtype": str(o.dtype)}
                        for p, o in zip(sig.outputs, r.outputs)],
            "diagnostics": [str(d) for d in res.diagnostics], "crash": res.crash,
            "time_us": res.cost.time_us if res.cost is not None else None, "sandboxed": res.sandboxed}


def _random(rng, shape: tuple, dtype: str):
    import numpy as np
    if dtype in ("float16", "float32", "bfloat16", "float"):
        a = rng.standard_normal(shape).astype(np.float32)
        if dtype == "bfloat16":
            from ..dtypes import round_bf16
            return round_bf16(a)
        return a.astype(np.float16 if dtype == "float16" else np.float32)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(np.bool_)
    try:
        np_type = np.dtype(dtype)
    except TypeError:
        raise UserError(f"--case: unknown dtype {dtype!r}", hint="float16, float32, bfloat16, int8 ... int64, uint8, "
                        "bool") from None
    if np_type.kind in "iu":
        return rng.integers(-8 if np_type.kind == "i" else 0, 8 if np_type.kind == "i" else 16, shape).astype(np_type)
    return rng.standard_normal(shape).astype(np_type)


def case_summary(doc: dict) -> str:
    head = "OK" if doc["ok"] else "FAILED"
    lines = [f"{head}  operator {doc['operator']}: block dim {doc['block_dim']}, tiling key {doc['tiling_key']}"]
    for o in doc["outputs"]:
        lines.append(f"  output {o['name']}: {o['dtype']}{o['shape']}")
    lines += [f"  {d}" for d in doc["diagnostics"]]
    if doc["crash"]:
        lines.append(f"  crash: {doc['crash']}")
    if doc["time_us"] is not None:
        lines.append(f"  modeled {doc['time_us']:,.1f} us")
    return "\n".join(lines)
