"""The ``ascendcraft reward`` command line (docs/training.md): one JSON object per input line
(``{"task": ..., "completion": ...}``) in, one result per line out, in the input's order."""
from __future__ import annotations

import json
import os
from pathlib import Path

from ..acceptance import PRECISIONS
from ..distributions import DEFAULT_TRIALS, INPUT_POLICIES
from ..errors import UserError

#: The largest input file read (an RL batch of long replies; the file is read whole).
MAX_INPUT_BYTES = 256 << 20


def add_parser(sub, parents=()) -> None:
    r = sub.add_parser(
        "reward", parents=list(parents), help="score model replies for RL: the stage each reached, correctness, "
        "modeled speed and a shaped reward",
        description="Score model replies against their tasks, in worker processes with a time limit per reply. "
                    "Each input line is {\"task\": <op file or task id>, \"completion\": <the model's reply>} (other "
                    "keys are copied to the result); each output line is the reply's result, in the input's order. "
                    "See docs/training.md.")
    r.add_argument("input", metavar="TASKS.jsonl", help="one JSON object per line (- reads stdin)")
    r.add_argument("--out", help="write the results here (atomically) instead of stdout, and print a summary")
    r.add_argument("--tasks", action="append", metavar="DIR", help="a folder of tasks a task id (category/name) "
                   "is looked up in (repeatable; default: the bundled examples); paths are read relative to the "
                   "input file's folder first")
    r.add_argument("--jobs", "-j", type=int, help="replies at once, each worker a process of its own (default: "
                   "the number of cores); 0 is not allowed: use the Python API's workers=0 to score in-process")
    r.add_argument("--timeout", type=float, default=300.0, help="seconds one reply may take before it is cut off "
                   "and scored at the stage it reached (default 300)")
    r.add_argument("--no-lower", action="store_true", help="stop at the interpreter's verdict: no lowering, no "
                   "modeled speed (faster; the reward of a verified kernel is then the shaping's `correct`)")
    r.add_argument("--shaping", metavar="FILE.json", help="the reward's shape: a JSON object with any of "
                   "failed_at (stage -> credit), correct, speed_weight, speed_clip (docs/training.md)")
    r.add_argument("--chip", default="910B2", help="chip profile (910B1 910B2 910B3 910B4 310P3)")
    r.add_argument("--backend", default="sim", choices=("sim", "npu"), help="where lowered kernels run (default sim)")
    r.add_argument("--trials", type=int, default=DEFAULT_TRIALS, help=f"verification trials (default {DEFAULT_TRIALS})")
    r.add_argument("--inputs", choices=INPUT_POLICIES, default="adversarial", help="verification inputs (as check)")
    r.add_argument("--precision", choices=PRECISIONS, default="ours", help="whose acceptance judges (as check)")
    r.add_argument("--seed", type=int, default=0, help="seed of the first trial: the same seed, the same results")
    r.add_argument("--max-bytes", type=int, default=64 << 20,
                   help="verify on reduced shapes when the op's tensors exceed this many bytes (default 64 MiB)")
    r.add_argument("--json", action="store_true", help="print one JSON document, the results and the summary as "
                   "its result, instead of one line per reply")


def read_requests(source: str) -> tuple[list[dict], Path | None]:
    """The input's objects, each checked (line numbers in every error), and the folder relative task
    paths are read from first."""
    if source == "-":
        import sys
        text, base = sys.stdin.read(MAX_INPUT_BYTES + 1), None
    else:
        path = Path(source)
        if not path.is_file():
            raise UserError(f"{source}: no such file" if not path.exists() else f"{source} is not a file")
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read(MAX_INPUT_BYTES + 1)
        base = path.resolve().parent
    if len(text) > MAX_INPUT_BYTES:
        raise UserError(f"{source} is larger than {MAX_INPUT_BYTES >> 20} MiB", hint="split it into several runs")
    requests = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except ValueError as err:
            raise UserError(f"{source}:{n}: not a JSON object ({err})") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("task"), str) or not isinstance(doc.get("completion"), str):
            raise UserError(f"{source}:{n}: each line is an object with a string \"task\" and a string \"completion\"",
                            hint='{"task": "examples/activation/softmax/op.py", "completion": "```dsl\\nkernel ..."}')
        doc["_line"] = n
        requests.append(doc)
    if not requests:
        raise UserError(f"{source} holds no requests", hint="one JSON object per line")
    return requests, base


def _shaping(path: str | None):
    from .shaping import Shaping
    if path is None:
        return Shaping()
    try:
        with open(path, encoding="utf-8") as f:
            return Shaping.from_json(json.load(f))
    except OSError as err:
        raise UserError(f"--shaping {path}: {err.strerror or err}") from None
    except ValueError as err:
        raise UserError(f"--shaping {path}: {err}") from None


def run(args) -> int:
    from . import RewardPool, RewardSettings, TaskResolver
    requests, base = read_requests(args.input)
    settings = RewardSettings(chip=args.chip, backend=args.backend, trials=args.trials, seed=args.seed,
                              inputs=args.inputs, precision=args.precision, max_bytes=args.max_bytes,
                              lower=not args.no_lower, shaping=_shaping(args.shaping))
    resolve = TaskResolver(args.tasks, base=base)
    paths = []
    for r in requests:
        try:
            paths.append(resolve(r["task"]))
        except UserError as err:
            err.message = f"{args.input}:{r['_line']}: {err.message}"
            raise
    if not args.no_lower and args.backend == "sim":
        from ..sim.cache import cache_dir
        cache_dir()            # a build cache that cannot be written fails now, not in every worker

    lines: list[str | None] = [None] * len(requests)
    written = [0]
    counts = {"correct": 0, "done": 0}
    sink = _Sink(args)
    counter = args.progress.counter(len(requests), unit="reply")

    def on_result(i: int, result) -> None:
        extra = {k: v for k, v in requests[i].items() if k not in ("task", "completion", "_line")}
        lines[i] = json.dumps({**extra, **result.to_json()})
        counts["done"] += 1
        counts["correct"] += result.correct
        counter.advance(f"{requests[i]['task']}: " + ("correct" if result.correct else f"failed at {result.stage}")
                        + (f" ({result.status.replace('_', ' ')})" if result.status != "scored" else ""),
                        correct=counts["correct"])
        while written[0] < len(lines) and lines[written[0]] is not None:   # in the input's order
            sink.write(lines[written[0]])
            written[0] += 1

    with RewardPool(settings, workers=args.jobs, time_limit=args.timeout) as pool:
        results = pool.score([(p, r["completion"]) for p, r in zip(paths, requests)],
                             labels=[r["task"] for r in requests], on_result=on_result)
    counter.close()
    sink.close(summary(results))
    return 0


def summary(results) -> str:
    from .shaping import STAGES
    n = len(results)
    scored = [r.reward for r in results if r.reward is not None]
    at = {s: sum(r.stage == s and not r.correct for r in results) for s in STAGES}
    failed = ", ".join(f"{k} {v}" for k, v in at.items() if v)
    others = {s: sum(r.status == s for r in results) for s in ("timeout", "internal_error", "task_error")}
    other = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in others.items() if v)
    mean = f"{sum(scored) / len(scored):.3f}" if scored else "none"
    return (f"{n} replies: {sum(r.correct for r in results)} correct; failed at: {failed or 'none'}"
            + (f"; {other}" if other else "") + f"; mean reward {mean}")


class _Sink:
    """stdout line by line, or ``--out`` written whole at the end (no partial file on failure)."""

    def __init__(self, args):
        self.args = args
        self.out = Path(args.out) if args.out else None
        self.held: list[str] = []

    def write(self, line: str) -> None:
        if self.out is None and not self.args.json:
            print(line, file=self.args.stdout, flush=True)
        else:
            self.held.append(line)

    def close(self, summary_line: str) -> None:
        if self.out is None:
            if self.args.json:
                from ..cli import emit_json
                emit_json(self.args, "done", 0, {"summary": summary_line, "out": None,
                                                 "results": [json.loads(line) for line in self.held]})
            return
        tmp = self.out.with_name(f".{self.out.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text("".join(line + "\n" for line in self.held), encoding="utf-8")
            os.replace(tmp, self.out)
        except OSError as err:
            tmp.unlink(missing_ok=True)
            raise UserError(f"cannot write --out {self.out}: {err.strerror or err}") from None
        if self.args.json:
            from ..cli import emit_json
            emit_json(self.args, "done", 0, {"summary": summary_line, "out": str(self.out), "results": None})
        else:
            from ..cli import emit
            emit(self.args, f"{summary_line}\n  wrote {self.out}")
