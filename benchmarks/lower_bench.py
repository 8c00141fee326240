"""Modeled performance of the bundled examples at MultiKernelBench 2026 shapes.

For each example, the op file's size constants are set to the MultiKernelBench "v2026"
values (shared/research/peers_benchmarks.md section 1.4; optimizer shapes from MKB HEAD
460a972), the kernel is lowered (verified on reduced shapes: the real tensors are GBs) and
the simulator's cost model times it at the full shapes. The floor is the HBM time of reading
every input and writing every output once, plus the launch overhead; efficiency = floor /
modeled time.

    python3 benchmarks/lower_bench.py [--only softmax,gelu] [--chip 910B2] [--markdown]
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# example -> {module constant: MultiKernelBench v2026 value}
MKB_2026 = {
    "gelu": {"batch_size": 4096, "dim": 393216},
    "leaky_relu": {"batch_size": 4096, "dim": 393216},
    "softmax": {"batch_size": 4096, "dim": 393216},
    "log_softmax": {"batch_size": 4096, "dim": 393216},
    "huber_loss": {"batch_size": 32768, "dim": 32768},
    "mse_loss": {"batch_size": 32768, "dim": 32768},
    "instance_norm": {"batch_size": 128, "features": 64, "dim1": 512, "dim2": 512},
    "rms_norm": {"batch_size": 128, "features": 64, "dim1": 512, "dim2": 512},
    "layer_norm": {"batch_size": 64, "features": 64, "dim1": 256, "dim2": 256},
    "l2_norm": {"batch_size": 32768, "dim": 65535},
    "adam": {"rows": 512, "cols": 2048},
    "sgd": {"rows": 1024, "cols": 4096},
    "cumsum": {"batch_size": 32768, "length": 32768},
    "cumprod": {"batch_size": 32768, "length": 32768},
    "cumsum_reverse": {"batch_size": 32768, "length": 32768},
    "masked_cumsum": {"batch_size": 32768, "length": 32768},
    "average_pooling_1d": {"batch_size": 64, "in_channels": 128, "input_length": 65536, "kernel_size": 8,
                           "stride": 1, "padding": 4},
    "max_pooling_2d": {"batch_size": 32, "channels": 64, "height": 512, "width": 512, "kernel_size": 4,
                       "stride": 1, "padding": 1},
    "cross_entropy_loss": {"batch_size": 32768, "num_classes": 4096},
    "sum_reduction_over_a_dimension": {"batch_size": 128, "dim1": 4096, "dim2": 4096},
    "matmul": {"M": 2048, "K": 8192, "N": 4096},
    "matmul_bias_relu": {"batch_size": 1024, "in_features": 8192, "out_features": 8192},
    "max_reduction_over_a_dimension": {"batch_size": 128, "dim1": 4096, "dim2": 4096},
}


def with_constants(op_source: str, values: dict) -> str:
    for name, value in values.items():
        op_source, n = re.subn(rf"(?m)^{name} = .*$", f"{name} = {value}", op_source)
        if n != 1:
            raise SystemExit(f"constant {name} not found once in the op file")
    return op_source


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated example names")
    ap.add_argument("--chip", default="910B2")
    ap.add_argument("--trials", type=int, default=3)
    args = ap.parse_args()
    from ascendcraft.errors import AscendcraftError
    from ascendcraft.lower import lower

    names = args.only.split(",") if args.only else list(MKB_2026)
    print("| example | MKB 2026 shape constants | modeled µs | floor µs | efficiency | bound | wall s |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        d = next(ROOT.glob(f"examples/*/{name}/"))
        consts = ", ".join(f"{k}={v}" for k, v in MKB_2026[name].items())
        with tempfile.TemporaryDirectory() as tmp:
            op = Path(tmp) / name / "op.py"
            op.parent.mkdir()
            op.write_text(with_constants((d / "op.py").read_text(), MKB_2026[name]))
            t0 = time.perf_counter()
            try:
                r = lower(d / "kernel.dsl", op, chip=args.chip, backend="sim", trials=args.trials)
            except AscendcraftError as err:
                print(str(err), file=sys.stderr)      # the whole message, for the record
                first = str(err).splitlines()[0]
                print(f"| {name} | {consts} | not lowered: {first[:90]} | | | | |")
                continue
            wall = time.perf_counter() - t0
            c = r.cost
            print(f"| {name} | {consts} | {c.time_us:,.0f} | {r.floor_us:,.0f} | {r.efficiency:.0%} | {c.bound} "
                  f"| {wall:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
