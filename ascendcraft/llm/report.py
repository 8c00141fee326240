"""What a generation run leaves behind: report.json, report.md, the conversations, the kernel."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from .. import __version__


def build_report(result, *, task, client, prompt, chosen, settings: dict, wall_s: float,
                 stopped: str | None) -> dict:
    samples = result.samples
    check = result.check
    after = result.after
    return {
        "status": "verified" if result.verified else "failed",
        "ascendcraft": __version__,
        "op": {"name": task.name, "path": str(task.path), "category": prompt.category,
               "examples": prompt.examples},
        "model": client.config.to_json(),
        "settings": settings,
        "chosen": None if chosen is None else {"sample": chosen.index, "turn": chosen.best_turn,
                                               "score": chosen.score},
        "samples_run": len(samples),
        "samples_verified": sum(s.verified for s in samples),
        "attempts": sum(len(s.turns) for s in samples),
        "usage": client.usage.to_json(),
        "wall_s": round(wall_s, 3),
        "stopped_early": stopped,
        "warnings": list(prompt.warnings) + list(dict.fromkeys(client.cache.write_errors)),
        "samples": [s.to_json() for s in samples],
        "verification": check.to_json() if check is not None else None,
        "after_verify": after.to_json() if hasattr(after, "to_json") else None,
    }


def _money(cost) -> str:
    return "unknown" if cost is None else f"${cost:.4f}"


def summary_text(r: dict) -> str:
    """A few lines for the terminal."""
    u = r["usage"]
    usage = (f"{r['attempts']} replies ({u['calls']} calls, {u['cached_replies']} from cache), "
             f"{u['tokens_in']:,} tokens in, {u['tokens_out']:,} out, cost {_money(u['cost_usd'])}, "
             f"{r['wall_s']:.1f} s")
    if r["status"] == "verified":
        c = r["chosen"]
        chosen = next(x for x in r["samples"] if x["sample"] == c["sample"])
        asked = sum(t["optimizing"] for t in chosen["trajectory"])
        turn = (f"turn {c['turn']}, the fastest of its verified kernels after {asked} optimisation turn(s)"
                f"{f' ({c_score:,.1f} us modeled)' if (c_score := c['score']) is not None else ''}" if asked
                else f"turn {c['turn']} of {r['settings']['turns']}")
        lines = [f"VERIFIED  {r['op']['name']} with {r['model']['model']}: sample {c['sample']} of "
                 f"{r['samples_run']} run, {turn}", "  " + usage]
        v = r["verification"]
        if v is not None:
            lines.append(f"  checked on {v['chip']} ({v['cores']} cores), "
                         f"{sum(t['passed'] for t in v['verification']['trials'])} trials passed")
    else:
        lines = [f"FAILED  {r['op']['name']} with {r['model']['model']}: none of {r['samples_run']} sample(s) "
                 f"verified", "  " + usage]
        for s in r["samples"]:
            err = (s["history"][-1]["error"] or "").splitlines()[0] if s["history"] else "no reply"
            lines.append(f"  sample {s['sample']}: died at {s['died_at']} after {s['turns']} turn(s): {err}")
        if u["cached_replies"] and not u["calls"]:
            lines.append("  every reply came from the response cache: pass another --seed (or --cache off) "
                         "for new samples")
    if r["stopped_early"]:
        lines.append(f"  stopped early: {r['stopped_early']}")
    return "\n".join(lines)


def report_markdown(r: dict) -> str:
    u, s = r["usage"], r["settings"]
    lines = [f"# {r['op']['name']}: LLM generation report", "",
             f"- status: **{r['status']}**",
             f"- op: `{r['op']['path']}` (examples shown: {', '.join(r['op']['examples']) or 'none'}; "
             f"category {r['op']['category'] or 'unknown'})",
             f"- model: `{r['model']['model']}`" + (f" at {r['model']['api_base']}" if r["model"]["api_base"] else "")
             + f" (from {r['model']['source']})",
             f"- settings: {s['samples']} sample(s) x {s['turns']} turn(s), temperature {s['temperature']:g}, "
             f"{'best of all' if s['best'] else 'first verified'}"
             + (f", up to {s['optimize']} optimisation turn(s)" if s.get("optimize") else "") + f", chip {s['chip']}, backend {s['backend']}, "
             f"seed {s['seed']}, cache {s['cache']}",
             f"- replies: {r['attempts']} ({u['calls']} calls, {u['retries']} retries, {u['cached_replies']} "
             f"from cache); tokens {u['tokens_in']:,} in / {u['tokens_out']:,} out; cost {_money(u['cost_usd'])}"
             + ("" if u["cost_complete"] else " (litellm has no price for some calls)"),
             f"- wall time: {r['wall_s']:.1f} s", ""]
    if r["stopped_early"]:
        lines += [f"Stopped early: {r['stopped_early']}", ""]
    for w in r["warnings"]:
        lines += [f"Warning: {w}", ""]
    lines += ["## Samples", "", "| sample | result | turns | stages | tokens in / out | cost | time |",
              "|---|---|---|---|---|---|---|"]
    for x in r["samples"]:
        result = "verified" if x["verified"] else f"died at {x['died_at']}"
        if x["score"] is not None:
            result += f" (score {x['score']:.4g})"
        lines.append(f"| {x['sample']} | {result} | {x['turns']} | {' → '.join(x['stages'])} | "
                     f"{x['tokens_in']:,} / {x['tokens_out']:,} | {_money(x['cost_usd'])} | {x['wall_s']:.1f} s |")
    lines.append("")
    for x in r["samples"]:
        if any(t["optimizing"] for t in x["trajectory"]):
            lines += [f"### Sample {x['sample']}: optimisation", "", "| turn | result | modeled time |", "|---|---|---|"]
            for t in x["trajectory"]:
                result = ("verified" + (" (kept: the fastest)" if t["turn"] == x["best_turn"] else "")
                          if t["stage"] == "verified" else f"failed at {t['stage']}")
                us = f"{t['time_us']:,.1f} µs" if t["time_us"] is not None else ""
                lines.append(f"| {t['turn']} | {result} | {us} |")
            lines.append("")
    for x in r["samples"]:
        failed = [h for h in x["history"] if not h["ok"]]
        if not failed:
            continue
        lines += [f"### Sample {x['sample']}: failures", ""]
        for h in failed:
            lines.append(f"- turn {h['turn']}, {h['stage']}: `{(h['error'] or '').splitlines()[0]}`")
        if x["internal_error"]:
            lines.append(f"- internal error (a bug in ascendcraft, please report): `{x['internal_error']}`")
        lines.append("")
    v = r["verification"]
    if v is not None:
        ver = v["verification"]
        lines += ["## Verification of the chosen kernel", "",
                  f"- {sum(t['passed'] for t in ver['trials'])}/{len(ver['trials'])} trials passed on "
                  f"{'reduced' if ver['shapes']['reduced'] else 'real'} shapes "
                  f"(seeds {', '.join(str(t['seed']) for t in ver['trials'])})",
                  f"- on-chip peak at real shapes: UB {v['real_shapes']['peak_bytes']['ub']:,} / "
                  f"{v['real_shapes']['capacity_bytes']['ub']:,} bytes", ""]
    lines += ["Conversations: `llm/sample_NN.jsonl` (one message per line).", ""]
    return "\n".join(lines)


def write_result(result, out: Path, *, force: bool, write_extra: Callable[[Path], None] | None = None) -> Path:
    from ..outdir import atomic_output_dir, failure_dir
    target = out if result.verified else failure_dir(out, force=force)
    with atomic_output_dir(target, force=force or not result.verified) as d:
        if result.verified:
            (d / "kernel.dsl").write_text(result.dsl, encoding="utf-8")
        llm = d / "llm"
        llm.mkdir()
        for s in result.samples:
            with open(llm / f"sample_{s.index:02d}.jsonl", "w", encoding="utf-8") as f:
                for message in s.transcript:
                    f.write(json.dumps(message, ensure_ascii=False) + "\n")
            if s.last_dsl:
                (llm / f"sample_{s.index:02d}.last.dsl").write_text(s.last_dsl, encoding="utf-8")
        if write_extra is not None:
            write_extra(d)
        (d / "report.json").write_text(json.dumps(result.report, indent=2, default=str) + "\n", encoding="utf-8")
        (d / "report.md").write_text(report_markdown(result.report), encoding="utf-8")
    return target
