"""The optimisation loop (``gen --optimize``) on bundled examples, with a scripted model.

    python3 benchmarks/optimize_loop.py [--tasks activation/gelu ...] [--tile 256]

For each task the scripted model first sends a slow kernel of our own (the bundled kernel with
its tile constant ``T`` set to ``--tile`` elements: right, but with short copies), then, told its
modeled speed, the bundled kernel, then the bundled kernel again (unchanged: the loop stops).
Each reply is verified and lowered as in ``gen``; the script prints, per task, the first
verified kernel's modeled time, the kept one's, eager's, and the first kernel's bound and busiest
line as the facts sent to the model gave them. With a real model the same run is
``ascendcraft gen OP.py --model M --optimize 3`` (docs/generation.md, "Optimisation turns").
"""
from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

from ascendcraft.llm.client import LLMClient, Reply
from ascendcraft.llm.config import ModelConfig

ROOT = Path(__file__).resolve().parents[1]
TASKS = ("activation/gelu", "activation/softmax", "activation/log_softmax", "broadcast/add_bias_broadcast",
         "index/masked_fill", "loss/mse_loss", "loss/huber_loss", "normalization/layer_norm",
         "normalization/rms_norm", "optimizer/sgd")


class ScriptedClient(LLMClient):
    """A model that answers from a list, offline (no litellm call)."""

    def __init__(self, replies: list[str]):
        super().__init__(ModelConfig("scripted/optimize-benchmark", source="benchmarks/optimize_loop.py"))
        self.replies = list(replies)
        self.asked: list[str] = []        # the last message of each request

    def _call(self, request: dict) -> Reply:
        self.asked.append(request["messages"][-1]["content"])
        return Reply(self.replies.pop(0), finish_reason="stop", prompt_tokens=0, completion_tokens=0, cost_usd=0.0)


def slow_variant(kernel: str, tile: int) -> str:
    """``kernel`` with its tile constant ``T`` set to ``tile`` elements (a plain number)."""
    found = re.search(r"^    const T = (.+)$", kernel, flags=re.M)
    if found is None:
        raise SystemExit("the kernel has no `const T` to shrink")
    return kernel[:found.start(1)] + str(tile) + kernel[found.end(1):]


def fenced(kernel: str) -> str:
    return f"```dsl\n{kernel}```\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", nargs="+", default=list(TASKS), help="example folders under examples/")
    ap.add_argument("--tile", type=int, default=256, help="the slow kernel's tile constant T (default 256)")
    args = ap.parse_args()
    from ascendcraft.lower import lower_checked
    from ascendcraft.llm.generate import generate
    print("| task | first kernel µs | kept kernel µs | gain | eager µs | kept turn | the first kernel's facts |")
    print("|---|---|---|---|---|---|---|")
    for name in args.tasks:
        folder = ROOT / "examples" / name
        good = (folder / "kernel.dsl").read_text()
        client = ScriptedClient([fenced(slow_variant(good, args.tile)), fenced(good), fenced(good)])
        t0 = time.perf_counter()
        g = generate(folder / "op.py", client=client, optimize=2, trials=2, backend="sim",
                     after_verify=lambda checked: lower_checked(checked, backend="sim", trials=2))
        s = g.report["samples"][0]
        times = [t["time_us"] for t in s["trajectory"] if t["time_us"] is not None]
        facts = client.asked[1] if len(client.asked) > 1 else ""
        eager = re.search(r"modeled eager PyTorch: ([\d,.]+) µs", facts)
        bound = re.search(r"(\w+)-bound", facts)
        line = re.search(r"^- (line \d+): `[^`]*`: (\w+ [\d,.]+ µs)", facts, flags=re.M)
        headline = (f"{bound.group(1) if bound else '?'}-bound; busiest line: "
                    f"{line.group(1) + ', ' + line.group(2) if line else 'none'}")
        first, kept = (times[0], g.after.cost.time_us) if g.verified and times else (None, None)
        print(f"| {name} | {first:,.1f} | {kept:,.1f} | {first / kept:.2f}x | "
              f"{eager.group(1) if eager else 'n/a'} | {s['best_turn']} | {headline} ({time.perf_counter() - t0:.0f} s) |"
              if first else f"| {name} | failed: {s['stages']} | | | | | |", flush=True)


if __name__ == "__main__":
    main()
