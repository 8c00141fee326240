"""Differential fuzzing of the lowering: random valid DSL kernels, interpreter vs simulator.

    python3 benchmarks/fuzz_lowering.py --examples 500 --seed 0

Draws ``--examples`` kernels from ``ascendcraft.fuzz.kernels.fuzz_cases`` (hypothesis, seeded),
runs each in the interpreter and, lowered through the real pass chain, on the simulator
(``ascendcraft.fuzz.differential.run_case``). Each disagreement or pass/emit/build/simulator error
is shrunk by hypothesis to a minimal kernel and printed (stage, pass, message, kernel, op);
fuzzing then continues, ignoring finds with the same signature (stage, pass, first line of the
message with numbers blanked). Finds that match ``KNOWN_BUGS`` are marked known. A summary
line ends the output. Exit code 0 when there are no finds except known ones, 1 otherwise.
"""
from __future__ import annotations

import argparse
import collections
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, Phase, given, seed as hseed, settings  # noqa: E402

from ascendcraft.fuzz.differential import run_case  # noqa: E402
from ascendcraft.fuzz.kernels import FORMS, Options, fuzz_cases, known_bug  # noqa: E402


class _Find(Exception):
    pass


def _key(result) -> str:
    first = result.message.strip().splitlines()[0] if result.message.strip() else ""
    first = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "#", first)
    first = re.sub(r"fuzz(\.\w+)*\.dsl:#:#", "", first)
    return f"{result.stage}:{result.pass_name or ''}:{first[:200]}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=100, help="kernels to generate (before shrinking)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--forms", default=",".join(FORMS), help="comma-separated subset of " + ", ".join(FORMS))
    ap.add_argument("--include-known", action="store_true",
                    help="also generate the forms of KNOWN_BUGS (they are found and reported as known)")
    ap.add_argument("--trials", type=int, default=1, help="input sets per kernel")
    ap.add_argument("--no-shrink", action="store_true", help="report finds as generated, without shrinking")
    ap.add_argument("--keep", type=Path, default=None, help="directory to keep each minimal find's files in")
    args = ap.parse_args(argv)
    forms = tuple(f for f in args.forms.split(",") if f)
    opts = Options(avoid_known=not args.include_known)

    seen: dict[str, object] = {}
    stats = collections.Counter()
    form_counts = collections.Counter()
    generated = 0
    t0 = time.time()
    round_no = 0
    while generated < args.examples:
        state = {"last": None, "gen": 0, "shrinking": False}

        phases = [Phase.generate] if args.no_shrink else [Phase.generate, Phase.shrink]

        @hseed(args.seed * 1000 + round_no)
        @settings(max_examples=args.examples - generated, deadline=None, database=None, phases=phases,
                  suppress_health_check=[HealthCheck.too_slow], report_multiple_bugs=False)
        @given(fuzz_cases(forms, opts))
        def prop(case):
            if not state["shrinking"]:
                state["gen"] += 1
                form_counts[case.forms[0]] += 1
            r = run_case(case, trials=args.trials)
            if not state["shrinking"]:
                stats[r.stage] += 1
            if r.ok or _key(r) in seen:
                return
            state["last"] = r
            state["shrinking"] = True
            raise _Find(_key(r))

        try:
            prop()
            generated += state["gen"]
            break
        except _Find:
            generated += state["gen"]
            r = state["last"]
            key = _key(r)
            seen[key] = r
            known = known_bug(r)
            print(f"\n=== find {len(seen)}{' (known: ' + known + ')' if known else ''} after {generated} "
                  f"kernels, {time.time() - t0:.0f} s", flush=True)
            print(r.report(), flush=True)
            if args.keep is not None:
                run_case(r.case, trials=args.trials, keep_dir=args.keep / f"find{len(seen):02d}")
        round_no += 1
    new = [r for r in seen.values() if not known_bug(r)]
    print(f"\nforms: " + ", ".join(f"{f} {n}" for f, n in sorted(form_counts.items())))
    print(f"stages: " + ", ".join(f"{s} {n}" for s, n in sorted(stats.items())))
    print(f"SUMMARY: {generated} kernels, {stats['ok']} agree, {len(seen)} distinct finds "
          f"({len(seen) - len(new)} known, {len(new)} new), {time.time() - t0:.0f} s")
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
