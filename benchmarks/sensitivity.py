"""How much the modeled times depend on each cost-model constant.

Four bundled examples -- a stream (leaky_relu), a reduction (sum over a dimension),
cross_entropy_loss and matmul -- are lowered at their MultiKernelBench 2026 shapes as
``benchmarks/lower_bench.py`` does. Then the real-shape cost-only run is repeated with each
constant of the chip profile's ``"cost"`` object at x0.5 and x2, one at a time
(``ascendcraft.sim.cost.cost_overrides``), and the change of the modeled time is printed as a
markdown table (docs/performance.md, "Sensitivity of the model").

    python3 benchmarks/sensitivity.py [--only leaky_relu,matmul] [--constants gm_latency,l2_bpc]
                                      [--chip 910B2] [--trials 1]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ascendcraft.chips import COST_KEYS, check_cost_keys, load_chip  # noqa: E402
from ascendcraft.mkb_shapes import mkb_2026_constants, with_constants  # noqa: E402

KERNELS = ("leaky_relu", "sum_reduction_over_a_dimension", "cross_entropy_loss", "matmul")
SHORT = {"sum_reduction_over_a_dimension": "sum_reduction", "cross_entropy_loss": "cross_entropy"}
FACTORS = (0.5, 2.0)


def lower_at_mkb_shapes(name: str, chip: str, trials: int, tmp: Path):
    """The example lowered on the simulator with its op file's sizes set to the MKB 2026 values."""
    from ascendcraft.lower import lower
    d = next(ROOT.glob(f"examples/*/{name}/"))
    source = (d / "op.py").read_text()
    op = tmp / name / "op.py"
    op.parent.mkdir()
    op.write_text(with_constants(source, mkb_2026_constants(source, str(d / "op.py")), str(d / "op.py")))
    return lower(d / "kernel.dsl", op, chip=chip, backend="sim", trials=trials)


def real_shape_cost(result):
    """The real-shape cost-only run of ``lower`` (ascendcraft.lower.real_shape_run), repeated
    without the verification around it; main() checks it reproduces lower's modeled time."""
    from ascendcraft.lower import real_shape_run
    res = real_shape_run(result)
    if not res.ok or res.cost is None:
        raise RuntimeError(f"the real-shape cost-only run failed:\n{res.report()}")
    return res.cost


def sweep(result, constants: list[str], profile: dict[str, float]) -> dict[tuple[str, float], float]:
    """Modeled µs with each constant scaled by each factor, one at a time."""
    from ascendcraft.sim.cost import cost_overrides
    times = {}
    for key in constants:
        for f in FACTORS:
            with cost_overrides({key: profile[key] * f}):
                times[key, f] = real_shape_cost(result).time_us
    return times


def table(kernels: list[str], base: dict[str, float], times: dict, constants: list[str],
          profile: dict[str, float], chip: str) -> str:
    """Rows: constants; columns: each kernel at x0.5 and x2, as % change of its baseline time."""
    short = [SHORT.get(k, k) for k in kernels]
    head = f"| constant ({chip} value) | " + " | ".join(f"{s} ×{f:g}" for s in short for f in FACTORS) + " |"
    baseline = [cell for k in kernels for cell in (f"{base[k]:,.0f}", "")]
    rows = [head, "|---|" + "---:|" * (len(kernels) * len(FACTORS)),
            "| *baseline, modeled µs* | " + " | ".join(baseline) + " |"]
    for key in constants:
        cells = [_pct(times[k][key, f], base[k]) for k in kernels for f in FACTORS]
        rows.append(f"| `{key}` ({profile[key]:g}) | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _pct(t: float, base: float) -> str:
    change = (t / base - 1) * 100
    return "0" if abs(change) < 0.05 else f"{change:+.1f} %"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated example names (default: the four above)")
    ap.add_argument("--constants", help="comma-separated cost constants (default: all of the profile's)")
    ap.add_argument("--chip", default="910B2")
    ap.add_argument("--trials", type=int, default=1, help="verification trials of the one lowering per kernel")
    args = ap.parse_args()
    kernels = args.only.split(",") if args.only else list(KERNELS)
    constants = args.constants.split(",") if args.constants else list(COST_KEYS)
    check_cost_keys(dict.fromkeys(constants))   # a typo fails before the first lowering
    profile = load_chip(args.chip).cost.values()
    base, times = {}, {}
    for name in kernels:
        with tempfile.TemporaryDirectory() as tmp:
            result = lower_at_mkb_shapes(name, args.chip, args.trials, Path(tmp))
            base[name] = real_shape_cost(result).time_us
            if abs(base[name] - result.cost.time_us) > 1e-6 * result.cost.time_us:
                raise RuntimeError(f"{name}: the repeated run gives {base[name]} µs, lower gave "
                                   f"{result.cost.time_us} µs: real_shape_cost no longer mirrors lower")
            print(f"{name}: {base[name]:,.1f} µs, {result.cost.bound}-bound", file=sys.stderr, flush=True)
            times[name] = sweep(result, constants, profile)
    print(table(kernels, base, times, constants, profile, args.chip))
    return 0


if __name__ == "__main__":
    sys.exit(main())
