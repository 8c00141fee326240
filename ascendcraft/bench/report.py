"""bench.json, bench.md, bench.csv and bench.png from the task records and their summary."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from . import faults
from .metrics import FAST_P, STAGES

CSV_FIELDS = ("task", "category", "status", "samples", "correct_samples", "ended_at", "stopped_by_us", "correct",
              "eager_us", "kernel_us", "speedup", "efficiency", "handwritten_us", "vs_handwritten", "tokens_in", "tokens_out", "cost_usd", "wall_s", "error")

#: How a task's result reads when its last sample ended at a stage (the stage names are the table's).
ENDED = {"parse": "did not parse", "extract": "no kernel in the reply", "check": "rejected by check",
         "verify": "wrong in the interpreter", "lower": "did not lower", "compile": "did not compile",
         "correct": "failed on the backend"}


def write_reports(out: Path, records: list[dict], summary: dict, settings: dict) -> dict[str, Path]:
    """Write the four files (each replaced whole: a reader never sees half a table)."""
    files = {"json": out / "bench.json", "md": out / "bench.md", "csv": out / "bench.csv"}
    _replace(files["json"], json.dumps({"settings": settings, "summary": summary, "tasks": records},
                                       indent=2, default=str) + "\n")
    _replace(files["csv"], csv_text(records))
    picture = plot(records, out / "bench.png")
    if picture is not None:
        files["png"] = picture
    reports = {r["task"] for r in records if (out / "tasks" / r["task"] / "report.md").is_file()}
    _replace(files["md"], markdown(records, summary, settings, picture=picture.name if picture else None,
                                   reports=reports))
    return files


def _replace(path: Path, text: str) -> None:
    _write_whole(path, f".{path.name}.tmp", lambda tmp: tmp.write_text(text))


def _write_whole(path: Path, tmp_name: str, write) -> None:
    """``write(tmp)`` into a sibling named ``tmp_name``, then put it in ``path``'s place: the file is
    whole or as it was, and a full disk leaves no half file behind."""
    tmp = path.with_name(tmp_name)
    try:
        write(tmp)
        tmp.replace(path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


def _row(r: dict) -> dict:
    samples = r.get("samples", [])
    usage = r.get("usage") or {}
    return {"task": r["task"], "category": r["category"], "status": r["status"], "samples": len(samples),
            "correct_samples": sum(s["ended_at"] == "correct" for s in samples),
            "ended_at": "correct" if r.get("correct") else (samples[-1]["ended_at"] if samples else r["status"]),
            "stopped_by_us": sum(bool(s.get("stopped_by_us")) for s in samples),
            "correct": bool(r.get("correct")), "eager_us": (r.get("eager") or {}).get("time_us"),
            "kernel_us": r.get("kernel_us"), "speedup": r.get("speedup"), "efficiency": r.get("efficiency"),
            "handwritten_us": (r.get("handwritten") or {}).get("time_us"), "vs_handwritten": r.get("vs_handwritten"),
            "tokens_in": usage.get("tokens_in"), "tokens_out": usage.get("tokens_out"),
            "cost_usd": usage.get("cost_usd"), "wall_s": r.get("wall_s"),
            "error": ((r.get("error") or {}).get("message") or _first_error(samples) or "").splitlines()[0:1]}


def _first_error(samples) -> str | None:
    return next((s.get("error") for s in reversed(samples) if s.get("error")), None)


def csv_text(records: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_FIELDS, lineterminator="\n")
    w.writeheader()
    for r in records:
        row = _row(r)
        row["error"] = row["error"][0] if row["error"] else ""
        w.writerow(row)
    return buf.getvalue()


def _pct(x) -> str:
    return "—" if x is None else f"{x:.0%}"


def _num(x, fmt: str = ",.1f") -> str:
    return "—" if x is None else format(x, fmt)


def summary_table(summary: dict) -> str:
    """The per-category table (Markdown), overall last."""
    groups = list(summary["categories"].items()) + [("**overall**", summary["overall"])]
    passes = [k for k in summary["overall"] if k.startswith("pass@")]
    yardstick = bool(summary["overall"].get("handwritten_tasks"))    # a column only where a task has one
    head = (["category", "tasks"] + list(STAGES[:-1]) + ["correct"] + passes
            + [f"fast_{p:g}" for p in FAST_P] + ["geomean speedup"]
            + (["geomean ours ÷ hand-written"] if yardstick else []) + ["stopped by ascendcraft", "not run (outside)"])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, s in groups:
        cells = [name, str(s["tasks"])] + [_pct(s["stages"][st]["rate"]) for st in STAGES]
        cells += [_pct(s[p]) for p in passes] + [_pct(s[f"fast_{p:g}"]) for p in FAST_P]
        cells.append("—" if s["geomean_speedup"] is None else f"{s['geomean_speedup']:.2f}×")
        if yardstick:
            g = s.get("geomean_vs_handwritten")
            cells.append("—" if g is None else f"{g:.2f} ({s['handwritten_tasks']})")
        cells.append(str(s.get("stopped_by_us", 0)))
        cells.append(str(s.get("not_run", 0)))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def not_run_sentence(overall: dict) -> str | None:
    """What the headline adds when tasks did not run for outside reasons (None when all ran)."""
    n = overall.get("not_run", 0)
    if not n:
        return None
    kinds = overall.get("outside") or {}
    why = next(iter(kinds)) if len(kinds) == 1 else ", ".join(f"{c} {k}" for k, c in sorted(kinds.items()))
    return f"{n} not run for outside reasons ({why}): rerun with --resume"


def sandbox_sentence(state: str) -> str:
    """bench's one statement on the sandbox (``settings["sandbox"]``)."""
    if state == "seccomp":
        return "Kernels ran in the simulator's seccomp sandbox."
    return f"NOT SANDBOXED: kernels ran without the simulator's seccomp sandbox: {state.removeprefix('none ')}."


def markdown(records: list[dict], summary: dict, settings: dict, *, picture: str | None = None,
             reports: set[str] | None = None) -> str:
    """bench.md; ``reports``: the tasks with a tasks/<task>/report.md to link (None: every task)."""
    o = summary["overall"]
    mode = (f"kernels from `{settings['kernels']}`" if settings.get("kernels")
            else f"model `{settings.get('model')}`, {settings['samples']} sample(s) of at most {settings['turns']} turns")
    not_run = not_run_sentence(o)
    lines = [f"# ascendcraft bench: {o['tasks']} tasks, {o['correct_tasks']} correct"
             + (f"; {not_run}" if not_run else ""), "",
             f"{mode}; backend {settings['backend']}, chip {settings['chip']}, {settings['trials']} verification "
             f"trials, inputs {settings['inputs']}, precision {settings.get('precision', 'ours')}. Stage rates "
             "count samples, leaving out those a bug of ascendcraft stopped (counted apart); pass@k, fast_p and the speedup count tasks. Tasks not run for "
             "an outside reason (a full disk, a worker killed from outside) count in every rate as passing "
             "nothing. "
             "Speedups are modeled: the kernel's simulated time against the modeled eager baseline "
             "(vendor kernels at roofline, a lower bound on eager time; docs/bench.md).", "",
             summary_table(summary), ""]
    if settings.get("sandbox"):
        lines += [sandbox_sentence(settings["sandbox"]), ""]
    if o["timed_out"] or o["crashed"] or o["errors"]:
        lines += [f"Not finished: {o['timed_out']} timed out, {o['crashed']} crashed, {o['errors']} stopped on an "
                  "error (their samples count as failed at the stage they reached).", ""]
    if settings.get("model"):
        lines += [f"Tokens: {o['tokens_in']:,} in, {o['tokens_out']:,} out; cost "
                  + ("unknown (unpriced model)" if o["cost_usd"] is None else f"${o['cost_usd']:.4f}") + ".", ""]
    if picture:
        lines += [f"![modeled speedup over eager, per task]({picture})", ""]
    yardstick = any("handwritten" in r for r in records)
    lines += ["| task | result | eager µs | kernel µs | speedup | efficiency | "
              + ("hand-written µs | ours ÷ hand-written | " if yardstick else "") + "folder |",
              "|---|---|---|---|---|---|" + ("---|---|" if yardstick else "") + "---|"]
    for r in sorted(records, key=lambda r: r["task"]):
        row = _row(r)
        result = "correct" if row["correct"] else _result(r, row)
        against = ""
        if yardstick:
            against = f"{_num(row['handwritten_us'])} | {_num(row['vs_handwritten'], '.2f')} | "
        lines.append(f"| {r['task']} | {result} | {_num(row['eager_us'])} | {_num(row['kernel_us'])} | "
                     f"{'—' if row['speedup'] is None else format(row['speedup'], '.2f') + '×'} | "
                     f"{_pct(row['efficiency'])} | {against}{_folder_link(r['task'], reports)} |")
    unmatched = sorted((r for r in records if (r.get("handwritten") or {}).get("note")), key=lambda r: r["task"])
    if unmatched:
        lines += ["", "## Hand-written operators without a time", ""]
        lines += [f"- **{r['task']}**: {r['handwritten']['note']}" for r in unmatched]
    outside = sorted((r for r in records if faults.is_outside(r)), key=lambda r: r["task"])
    if outside:
        lines += ["", "## Not run: outside faults", "",
                  "Not the kernel's failures, nor the op file's: `--resume` runs these tasks again.", ""]
        lines += [f"- **{r['task']}**: {r['outside']}" for r in outside]
    failed = [r for r in records if not r.get("correct") and not faults.is_outside(r)]
    ours = [r for r in failed if _stopped_by_us(r)]
    if ours:
        lines += ["", "## Stopped by a bug of ascendcraft", "",
                  "Not the kernel's failures: an internal error, or a failure ascendcraft recognises as its own "
                  "(a pass that broke the program, emitted code that does not build or breaks a hardware rule).", ""]
        for r in sorted(ours, key=lambda r: r["task"]):
            row = _row(r)
            lines.append(f"- **{r['task']}** (at {row['ended_at']}): {row['error'][0] if row['error'] else r['status']}")
    theirs = [r for r in failed if not _stopped_by_us(r)]
    if theirs:
        lines += ["", "## Failures", ""]
        for r in sorted(theirs, key=lambda r: r["task"]):
            row = _row(r)
            lines.append(f"- **{r['task']}** ({_result(r, row)}): {row['error'][0] if row['error'] else r['status']}")
    return "\n".join(lines) + "\n"


def _folder_link(task: str, reports: set[str] | None) -> str:
    if reports is not None and task not in reports:
        return f"tasks/{task} (no report: the task stopped before one)"
    return f"[tasks/{task}](tasks/{task}/report.md)"


def _stopped_by_us(r: dict) -> bool:
    samples = r.get("samples", [])
    return bool(samples) and bool(samples[-1].get("stopped_by_us"))


def _result(r: dict, row: dict) -> str:
    """A failed task's result in words: what stopped it and where."""
    samples = r.get("samples", [])
    if faults.is_outside(r):
        return f"not run: {faults.kind(r)} (outside fault)"
    if r["status"] != "done":
        return f"{r['status']} ({ENDED.get(row['ended_at'], row['ended_at'])})"
    if samples and samples[-1].get("unverifiable"):
        return "not verifiable: the op's output is the same on every draw"
    if _stopped_by_us(r):
        return f"stopped by a bug of ascendcraft ({ENDED.get(row['ended_at'], row['ended_at'])})"
    return ENDED.get(row["ended_at"], f"failed at {row['ended_at']}")


def plot(records: list[dict], path: Path) -> Path | None:
    """Per-task modeled speedup, sorted, one colour per category (None when no task has one)."""
    points = sorted(((r["speedup"], r["task"], r["category"]) for r in records if r.get("speedup")),
                    key=lambda p: p[0])
    if not points:
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    categories = sorted({p[2] for p in points})
    # one look per category: 20 colours, then the same colours hatched (MultiKernelBench has 15)
    looks = {c: (plt.get_cmap("tab20")(i % 20), ("", "//", "..", "xx")[i // 20 % 4]) for i, c in enumerate(categories)}
    fig, ax = plt.subplots(figsize=(max(6.0, 0.32 * len(points) + 3.5), 4.2), dpi=110)
    xs = range(len(points))
    # bars grow from 1x: up is faster than eager, down is slower; a dot marks each value, so a
    # kernel as fast as eager (a bar of no height) is seen too
    for c in categories:
        mine = [(x, p[0]) for x, p in zip(xs, points) if p[2] == c]
        ax.bar([x for x, _ in mine], [v - 1.0 for _, v in mine], bottom=1.0, color=looks[c][0], hatch=looks[c][1],
               edgecolor="black", linewidth=0)
    ax.scatter(list(xs), [p[0] for p in points], c=[looks[p[2]][0] for p in points], s=16, zorder=3,
               edgecolors="black", linewidths=0.5)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    low, high = min(p[0] for p in points), max(p[0] for p in points)
    ax.set_ylim(min(low, 1.0) / 1.25, max(high, 1.0) * 1.25)
    from matplotlib.ticker import FuncFormatter, LogLocator
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_minor_locator(LogLocator(base=10, subs=(0.3, 0.4, 0.6, 0.7, 0.8, 0.9, 1.5, 3, 4, 6, 7, 8, 9)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}×"))
    # labelled minor ticks only on a narrow range, where the majors (1, 2, 5, 10) are too few
    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}×" if high / max(low, 1e-9) < 4 else ""))
    ax.set_xticks(range(len(points)))
    ax.set_xticklabels([p[1].split("/", 1)[-1] for p in points], rotation=70, ha="right", fontsize=7)
    ax.set_ylabel("modeled speedup over eager (log)")
    ax.set_title(f"ascendcraft bench: the {len(points)} correct kernels of {len(records)} tasks, sorted")
    # beside the plot, never over a bar
    ax.legend(handles=[plt.Rectangle((0, 0), 1, 1, facecolor=looks[c][0], hatch=looks[c][1], edgecolor="black",
                                     linewidth=0) for c in categories],
              labels=categories, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
              frameon=False)
    fig.tight_layout()
    try:
        _write_whole(path, f".{path.stem}.tmp.png", fig.savefig)
    finally:
        plt.close(fig)
    return path
