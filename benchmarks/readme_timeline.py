"""Regenerate docs/images/timeline.png, the timeline picture the README shows.

Lowers one bundled example (examples/activation/softmax by default) on the simulator backend,
exactly as ``ascendcraft lower`` does, writes its output folder to a temporary directory and
copies the timeline.png drawn there to docs/images/timeline.png. If that file is larger than
``--max-kb``, the same timeline is drawn again at a lower DPI (``draw_timeline``'s ``dpi``) until
it fits, so the committed picture stays small.

    python3 benchmarks/readme_timeline.py [--example activation/softmax] [--out docs/images/timeline.png]
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: DPIs tried, in order, when the picture ``lower`` drew is over the size limit.
SMALLER_DPIS = (100, 90, 80, 72, 64)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--example", default="activation/softmax", help="examples/<category>/<op> to lower")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "images" / "timeline.png")
    ap.add_argument("--max-kb", type=float, default=150.0, help="largest PNG to keep (KB)")
    ap.add_argument("--trials", type=int, default=1, help="verification trials (1 is enough for a picture)")
    args = ap.parse_args()

    from ascendcraft.chips import load_chip
    from ascendcraft.lower import lower
    from ascendcraft.results import write_output
    from ascendcraft.sim.timeline import draw_timeline, roofline_from_cost

    ex = ROOT / "examples" / args.example
    t0 = time.perf_counter()
    result = lower(ex / "kernel.dsl", ex / "op.py", backend="sim", trials=args.trials, seed=0, model_time=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = write_output(result, Path(tmp) / "out")
        png = folder / "timeline.png"
        if not png.exists():
            print(f"no timeline.png was drawn: {result.timeline_note or 'no timeline'}", file=sys.stderr)
            return 1
        args.out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(png, args.out)
    limit = args.max_kb * 1000
    if args.out.stat().st_size > limit:
        roof = roofline_from_cost(result.cost, load_chip(result.chip), floor_us=result.floor_us,
                                  floor_kind=result.floor_kind)
        for dpi in SMALLER_DPIS:
            draw_timeline(result.timeline, args.out, roofline=roof, dpi=dpi)
            if args.out.stat().st_size <= limit:
                break
    size = args.out.stat().st_size
    print(f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out} "
          f"({size / 1000:.1f} KB) from examples/{args.example} in {time.perf_counter() - t0:.1f} s")
    return 0 if size <= limit else 1


if __name__ == "__main__":
    sys.exit(main())
