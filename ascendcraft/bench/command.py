"""The ``ascendcraft bench`` command line (docs/bench.md)."""
from __future__ import annotations

from ..acceptance import PRECISIONS
from ..distributions import DEFAULT_TRIALS, INPUT_POLICIES


def add_parser(sub, parents=()) -> None:
    b = sub.add_parser(
        "bench", parents=list(parents), help="the MultiKernelBench-style table over many ops: compile, correct, "
        "pass@k, fast_p against a modeled eager baseline",
        description="Run many tasks (op files, or folders of them in MultiKernelBench's reference/<category>/<op>.py "
                    "layout) through the pipeline of gen (--model) or with given DSL kernels (--kernels), in worker "
                    "processes, and write bench.md, bench.json, bench.csv and bench.png. See docs/bench.md.")
    b.add_argument("tasks", nargs="+", metavar="TASK", help="an op file, or a folder searched for op files")
    src = b.add_mutually_exclusive_group()
    src.add_argument("--kernels", metavar="DIR", help="DSL kernels by op name: DIR/<op>.dsl, DIR/<category>/<op>.dsl "
                     "or DIR/<category>/<op>/kernel.dsl (so --kernels examples runs this repository's examples)")
    src.add_argument("--model", help="litellm model string: a model writes each kernel, as in gen (default: "
                     "$ASCENDCRAFT_MODEL or the config file, when --kernels is not given)")
    b.add_argument("--api-base", help="base URL of an OpenAI-compatible server")
    b.add_argument("--samples", type=int, default=1, help="samples per task with --model (the k of pass@k; default 1); "
                   "all run, no early stop")
    b.add_argument("--turns", type=int, default=4, help="replies per sample with --model (default 4)")
    b.add_argument("--optimize", type=int, default=0, metavar="N",
                   help="with --model: after a kernel verifies, up to N more replies asking for a faster one, as "
                   "gen --optimize (default 0)")
    b.add_argument("--temperature", type=float, help="sampling temperature (default as gen)")
    b.add_argument("--jobs", "-j", type=int, help="tasks at once, each in its own worker process (default: the "
                   "number of cores)")
    b.add_argument("--timeout", type=float, default=900.0, help="seconds one task may take before it is cut off "
                   "and recorded as timed out (default 900)")
    b.add_argument("--out", default="kernels_out/bench", help="output folder (default kernels_out/bench)")
    b.add_argument("--resume", action="store_true", help="continue the run in --out: tasks with a record in "
                   "results.jsonl are not run again")
    b.add_argument("--force", action="store_true", help="start again in an --out that holds a run")
    b.add_argument("--chip", default="910B2", help="chip profile (910B1 910B2 910B3 910B4 310P3)")
    b.add_argument("--backend", default="auto", choices=("auto", "sim", "npu"),
                   help="where the kernels run (default: npu if CANN and an NPU are present, else sim)")
    b.add_argument("--trials", type=int, default=DEFAULT_TRIALS, help=f"verification trials (default {DEFAULT_TRIALS})")
    b.add_argument("--inputs", choices=INPUT_POLICIES, default="adversarial",
                   help="verification inputs (as check; docs/verification.md)")
    b.add_argument("--precision", choices=PRECISIONS, default="ours",
                   help="whose acceptance judges the kernels: ours or the benchmark's own (task); as check")
    b.add_argument("--seed", type=int, default=0, help="seed of the first trial (and of the first sample)")
    b.add_argument("--max-bytes", type=int, default=64 << 20,
                   help="verify on reduced shapes when the op's tensors exceed this many bytes (default 64 MiB)")
    b.add_argument("--no-handwritten", dest="handwritten", action="store_false",
                   help="do not time a task's hand-written operator (NPUKernelBench's answer/0) beside a correct "
                   "kernel; by default bench runs it at the same case and reports ours / hand-written")
    b.add_argument("--cache", choices=("on", "off", "replay"), help="LLM response cache (as gen)")
    b.add_argument("--json", action="store_true", help="print one JSON document, the summary as its result")


def run(args) -> int:
    from ..lower import resolve_backend
    from . import run_bench
    from .job import BenchOptions
    from .report import not_run_sentence, sandbox_sentence, summary_table
    model = args.model
    if args.kernels is None:
        from ..llm.config import NoModelConfigured, resolve
        try:
            model = resolve(args.model, args.api_base).model
        except NoModelConfigured:       # one clear error, exit 2, naming bench's two ways to get kernels
            raise NoModelConfigured("bench", hint="bench takes its kernels from a model, or from a folder of "
                                    "hand-written ones: `ascendcraft bench TASKS --kernels DIR` (DIR/<task>.dsl "
                                    "or DIR/<category>/<task>/kernel.dsl), offline") from None
    options = BenchOptions(chip=args.chip, backend=resolve_backend(args.backend), trials=args.trials, seed=args.seed,
                           inputs=args.inputs, precision=args.precision, max_bytes=args.max_bytes,
                           samples=args.samples, turns=args.turns, optimize=args.optimize,
                           model=model, api_base=args.api_base, temperature=args.temperature, cache=args.cache,
                           handwritten=args.handwritten)
    result = run_bench(args.tasks, kernels=args.kernels, out=args.out, options=options, jobs=args.jobs,
                       timeout=args.timeout, resume=args.resume, force=args.force, progress=args.progress)
    from ..cli import emit, emit_json
    if args.json:
        emit_json(args, "done", 0, {"out": str(result.out), "summary": result.summary,
                                    "files": {k: str(v) for k, v in result.files.items()}})
    else:
        o = result.summary["overall"]
        files = ", ".join(p.name for p in result.files.values())
        sandbox = result.settings.get("sandbox")
        not_run = not_run_sentence(o)
        emit(args, f"{o['correct_tasks']} of {o['tasks']} tasks correct ({result.ran} run now, "
                   f"{o['tasks'] - result.ran} from results.jsonl; {result.wall_s:.0f} s)"
                   + (f"; {not_run}" if not_run else "") + "\n"
                   + (f"{sandbox_sentence(sandbox)}\n" if sandbox else "") + "\n"
                   f"{summary_table(result.summary)}\n\n  wrote {result.out}/ ({files}, tasks/)")
    return 0
