"""The results folder of ``ascendcraft lower`` (kernels_out/<op>/) and what its report says:
the DSL and every pass's program, the AscendC kernel and project, the timeline (JSON and
picture), report.json and report.md (docs/lowering.md, "The report"). A failed run's folder
too. The lowering itself is ascendcraft/lower.py."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from .chips import load_chip
from .errors import AscendcraftError, UserError
from .groups import input_dtypes
from .lower import Lowered
from .passes import LoweringRun, PassError

#: Instruction events in timeline.json: the slowest cores first, whole, until this many.
TIMELINE_EVENTS = 20_000


def write_output(result: Lowered, out: Path, *, force: bool = False) -> Path:
    """kernels_out/<op>/: the DSL, every pass's program, the AscendC project, report.json and report.md."""
    from .outdir import atomic_output_dir
    with atomic_output_dir(out, force=force) as d:
        (d / "kernel.dsl").write_text(result.run.levels[0].text)
        write_lowered(result, d)
        write_timeline(result, d)
        (d / "report.json").write_text(json.dumps(result.to_json(), indent=2, default=str) + "\n")
        (d / "report.md").write_text(report_markdown(result))
    return out


def write_lowered(result: Lowered, d: Path) -> None:
    """Into directory ``d``: passes/ (every level), ascendc/ (kernel and tiling header), project/."""
    write_levels(d / "passes", result.run)
    src = d / "ascendc"
    src.mkdir(exist_ok=True)
    (src / f"{result.spec.op_name}.cpp").write_text(result.spec.kernel_source)
    (src / f"{result.spec.op_name}_tiling.h").write_text(result.tiling_header)
    for r in result.instances:        # a generic kernel's other dtypes: ascendc/<dtypes>/
        sub = src / "_".join(input_dtypes(r.check.shapes))
        sub.mkdir(exist_ok=True)
        (sub / f"{r.spec.op_name}.cpp").write_text(r.spec.kernel_source)
        (sub / f"{r.spec.op_name}_tiling.h").write_text(r.tiling_header)
    from .binding import forward_names
    from .codegen.project import write_project
    from .codegen.variants import combine
    try:
        # ModelNew takes the reference's forward arguments as the harness passes them
        shapes = result.check.shapes
        forward = forward_names(result.check.real.kernel, shapes)
        spec, why = combine(result.spec, [r.spec for r in result.instances])
        if why:
            result.project_note = f"CANN project for the {', '.join(input_dtypes(result.check.shapes))} instance only: {why}"
        write_project(dataclasses.replace(spec, forward=forward, forward_keywords=shapes.input_names), d / "project")
    except UserError as err:   # e.g. an output extent the host cannot derive from the inputs
        import shutil
        shutil.rmtree(d / "project", ignore_errors=True)
        result.project_note = f"CANN project not generated: {err.message}"


def write_timeline(result: Lowered, d: Path) -> None:
    """Into ``d``: timeline.json (Chrome trace of the real-shape cost run: the slowest cores, whole,
    up to :data:`TIMELINE_EVENTS` instructions) and timeline.png (the critical core's pipes and the
    roofline; needs matplotlib). Nothing when there was no cost run."""
    tl = result.timeline
    result.timeline_files, result.timeline_note, result.timeline_json_cores = {}, None, None
    if tl is None or not len(tl):
        return
    from .sim.timeline import chrome_trace, draw_timeline, roofline_from_cost
    name = result.spec.op_name
    doc = chrome_trace(tl, source=result.spec.kernel_source, kernel_file=f"ascendc/{name}.cpp",
                       max_events=TIMELINE_EVENTS, name=name, line_map=dict(result.spec.dsl_lines) or None)
    (d / "timeline.json").write_text(json.dumps(doc, separators=(",", ":")))
    result.timeline_files["json"] = "timeline.json"
    cores = len(tl.cores())
    result.timeline_json_cores = (cores - len(doc["otherData"].get("omitted_cores", ())), cores)
    try:
        import matplotlib  # noqa: F401  (only to say so when it is missing)
    except ImportError:
        result.timeline_note = "timeline.png was not drawn: the picture needs matplotlib (pip install matplotlib)"
        return
    try:
        roof = roofline_from_cost(result.cost, load_chip(result.chip), floor_us=result.floor_us,
                                  floor_kind=result.floor_kind)
        draw_timeline(tl, d / "timeline.png", roofline=roof)
        result.timeline_files["png"] = "timeline.png"
    except Exception as err:   # a picture never fails a lowering that passed
        result.timeline_note = f"timeline.png was not drawn: {type(err).__name__}: {err}"


def write_levels(directory: Path, run: LoweringRun, failed: PassError | None = None):
    directory.mkdir(parents=True, exist_ok=True)
    for i, lv in enumerate(run.levels if run is not None else []):
        (directory / f"{i:02d}_{lv.pass_name}.dsl").write_text(lv.text)
    if failed is not None:
        (directory / f"failed_{failed.pass_name}.before.dsl").write_text(failed.before)
        if failed.after is not None:
            (directory / f"failed_{failed.pass_name}.after.dsl").write_text(failed.after)


def write_failure(err: AscendcraftError, out: Path, *, force: bool = False) -> Path:
    """A failed run leaves what it made, in ``out`` when it is free, else in ``<out>.failed``
    (never over a good result): a failed pass both programs; a failure on the backend every
    level, the AscendC kernel and the error."""
    from .outdir import atomic_output_dir, failure_dir
    target = failure_dir(out)
    lowered = getattr(err, "lowered", None)
    with atomic_output_dir(target, force=True, kind="failure") as d:
        report = {"status": "failed", "stage": getattr(err, "stage", None), "error": err.message}
        if isinstance(err, PassError):
            write_levels(d / "passes", None, err)
            report["pass"] = err.pass_name
        elif lowered is not None:
            (d / "kernel.dsl").write_text(lowered.run.levels[0].text)
            write_levels(d / "passes", lowered.run)
            src = d / "ascendc"
            src.mkdir()
            (src / f"{lowered.spec.op_name}.cpp").write_text(lowered.spec.kernel_source)
            (src / f"{lowered.spec.op_name}_tiling.h").write_text(lowered.tiling_header)
        (d / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    return target


def report_markdown(r: Lowered) -> str:
    c, v = r.cost, r.verification
    lines = [f"# {r.check.kernel.name}: lowering report", "",
             f"- op: `{r.check.task.path}`", f"- chip: {r.chip}, backend: {r.backend}",
             f"- CANN / MultiKernelBench project: {r.project_note or 'project/'}",
             *([f"- {r.sandbox_line}"] if r.sandbox_line is not None else []), "",
             "## Checks", "", "| stage | result |", "|---|---|",
             f"| source vs torch (interpreter) | {'pass' if r.check.passed else 'FAIL'} |"]
    for lv in r.run.levels[1:]:
        lines.append(f"| pass `{lv.pass_name}` vs previous level (interpreter) | pass |")
    if v is not None:
        lines.append(f"| AscendC on {r.backend} vs torch | {'pass' if v.passed else 'FAIL'} |")
    notes = [f"- {note}" for lv in r.run.levels[1:] for note in lv.notes]   # each names its pass
    if r.llm is not None:
        cost = r.llm.get("cost_usd")
        notes.append(f"- model {r.llm['model']} for statements no rule lowers: {r.llm['calls']} call(s), "
                     f"{r.llm['tokens_in']} tokens in, {r.llm['tokens_out']} out"
                     + (f", ${cost:.4f}" if cost is not None else ", cost unknown"))
    if notes:
        lines += ["", "## What the passes decided", "", *notes]
    lines += ["", "Verification shapes: " + r.check.shapes.describe(), ""]
    if v is not None:
        lines += ["```", v.summary(), "```", ""]
    for other, report in r.other_verifications:
        what = other.title()[0].upper() + other.title()[1:] if other.label else "Second verification shapes"
        lines += [f"{what}: " + other.shapes.describe(), "", "```", report.summary(), "```", ""]
    for line in r.check.skipped_lines():
        lines += [line[0].upper() + line[1:], ""]
    for line in r.instance_lines():
        lines += [line[0].upper() + line[1:], ""]
    if c is not None:
        eff = r.efficiency
        floor = ("the cube floor: the kernel's multiply-adds at the operand dtype's peak rate on every cube core"
                 if r.floor_kind == "cube" else
                 "the HBM floor: every input read once and every output written once at the chip's HBM bandwidth")
        lines += ["## Modeled performance (real shapes, simulator cost model)", "",
                  f"- modeled time: {c.time_us:,.1f} us ({c.bound}-bound; body {c.body_us:,.1f} us + launch "
                  f"{c.launch_us:,.1f} us)",
                  f"- floor: {r.floor_us:,.1f} us, {floor}, plus the launch",
                  f"- efficiency (floor / modeled time): {eff:.1%}" if eff else "- efficiency: n/a",
                  f"- what would help most: {_advice(c.bound, eff)}", "",
                  "Busy time of each pipe on the slowest core (the pipes run in parallel; the busiest bounds "
                  "the kernel):", "", "| pipe | busy us | what runs there |", "|---|---|---|"]
        lines += [f"| {k} | {v_:,.1f} | {PIPES.get(k, '')} |" for k, v_ in c.pipe_busy_us.items() if v_ > 0]
        lines += ["", "How the time is modeled: docs/simulator.md (cost model) and docs/performance.md; the "
                  "figures are the model's, not a measurement on hardware.", ""]
    lines += _timeline_section(r)
    files = [(name, what) for name, what in REPORT_FILES
             if not name.startswith("timeline.") or name.split(".")[1] in r.timeline_files]
    lines += ["## Files", "", *[f"- `{name}`: {what}" for name, what in files], ""]
    return "\n".join(lines)


def _timeline_section(r: Lowered) -> list[str]:
    if not r.timeline_files:
        return []
    tl = r.timeline
    lines = ["## Timeline", ""]
    if "png" in r.timeline_files:
        lines += ["![timeline](timeline.png)", "",
                  f"Pipe occupancy of the slowest core (core {tl.critical_core()}) over the modeled run at the real "
                  "shapes, and where the kernel sits against the chip's roofs.", ""]
    elif r.timeline_note:
        lines += [r.timeline_note + ".", ""]
    lines += ["`timeline.json` is the simulated timeline as a Chrome trace (one track per core and pipe, each "
              "instruction with its AscendC call and kernel line): open it in https://ui.perfetto.dev or "
              "chrome://tracing.", ""]
    kept, cores = r.timeline_json_cores or (0, 0)
    if kept < cores:
        lines += [f"It holds the {kept} slowest of the {cores} cores (up to {TIMELINE_EVENTS:,} instructions); "
                  "`ascendcraft.sim.run_kernel(..., trace=True)` and `ascendcraft.sim.timeline.chrome_trace` give "
                  "them all (docs/simulator.md, Timeline).", ""]
    if tl.dropped:
        lines += [f"The trace keeps the first {tl.limit:,} instructions of each block; {tl.dropped:,} later ones "
                  "are not in it.", ""]
    return lines


#: What each pipe of the cost model does (the key printed in report.md).
PIPES = {
    "S": "scalar unit: control flow, address arithmetic, GetValue/SetValue, waits for the other pipes",
    "V": "vector unit: element-wise math, reductions, casts, Gather on UB tiles",
    "MTE1": "L1 -> L0A/L0B copies (cube operands)",
    "MTE2": "GM -> UB/L1 copies (loads)",
    "AIC_MTE2": "GM -> L1 copies of the Matmul API's operands (the cube core's own copy-in pipe)",
    "MTE3": "UB -> GM copies (stores)",
    "M": "cube unit: matrix multiply-accumulate",
    "FIX": "L0C -> GM/UB copies of cube results",
    "HBM": "this core's share of the chip's HBM bandwidth (all cores share it)",
}

#: The files of a kernels_out/<op>/ folder, each with one line.
REPORT_FILES = (
    ("report.md", "this report"),
    ("report.json", "everything here as data: checks, trials, pass decisions, modeled time"),
    ("kernel.dsl", "the kernel as checked"),
    ("passes/NN_<pass>.dsl", "the program after each lowering pass, each checked by the interpreter"),
    ("ascendc/<op>.cpp, ascendc/<op>_tiling.h", "the AscendC kernel and its tiling header (a generic kernel's "
                                                 "other dtypes in ascendc/<dtypes>/)"),
    ("project/", "CANN custom-op and direct-call projects, torch_npu binding, MultiKernelBench exports "
                 "(docs/backends.md)"),
    ("timeline.json", "the simulated pipe timeline at the real shapes as a Chrome trace (open in "
                      "https://ui.perfetto.dev or chrome://tracing)"),
    ("timeline.png", "the slowest core's pipes over time and the kernel's roofline position"),
)


def _advice(bound: str, efficiency: float | None) -> str:
    """The one change most likely to help a kernel with this bound."""
    if bound == "hbm":
        if efficiency is not None and efficiency >= 0.9:
            return "nothing much: the kernel moves its bytes at about the memory floor"
        return ("read each input once: fuse passes over the same data (a loop of phases keeps a slab in L2), and "
                "load tiles of 16-32 KiB so copies stay long")
    if bound == "l2":
        return "reuse operands on chip longer (bigger tiles or blocks) so fewer bytes stream from L2"
    if bound == "vector":
        return "fewer vector ops per element (fold constants, reuse results), or fewer temporaries so tiles can grow"
    if bound == "scalar":
        return ("fewer scalar waits: avoid per-element scalar work, keep reductions as tiles, and let loads of the "
                "next tile overlap (bigger tiles mean fewer waits)")
    if bound == "cube":
        return "at the cube's peak: a smaller operand dtype (f16/bf16 with f32 accumulation) doubles the rate"
    if bound == "launch":
        return "the op is too small for the chip's cores: fuse it with its neighbours or batch more work per launch"
    return "see docs/performance.md"
