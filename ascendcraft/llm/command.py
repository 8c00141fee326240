"""``ascendcraft gen``: generate a verified tile-DSL kernel for an op with an LLM.

Nothing here imports litellm: it is imported on the first model call (client.load_litellm).
"""
from __future__ import annotations

from pathlib import Path

from ..acceptance import PRECISION_HELP, PRECISIONS
from ..distributions import DEFAULT_TRIALS, INPUT_POLICIES, INPUTS_HELP


def add_parser(sub, parents=()) -> None:
    g = sub.add_parser(
        "gen", parents=list(parents), help="generate a kernel for an op with an LLM, verified against PyTorch",
        description="Ask an LLM (any litellm provider) for a tile-DSL kernel for an op file, check and verify every "
                    "reply, send each failure back to the model, and write the verified kernel, the "
                    "conversations and a report to kernels_out/<op>/. See docs/generation.md.")
    g.add_argument("op", help="the op file (MultiKernelBench format: class Model, get_inputs, get_init_inputs)")
    g.add_argument("--model", help="litellm model string, e.g. openai/gpt-4o, anthropic/claude-sonnet-4-5, "
                   "hosted_vllm/NAME, ollama_chat/NAME (default: $ASCENDCRAFT_MODEL, else [llm] model in "
                   "ascendcraft.toml or ~/.config/ascendcraft/config.toml)")
    g.add_argument("--api-base", help="base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1 "
                   "(default: $ASCENDCRAFT_API_BASE or the config file)")
    g.add_argument("--samples", type=int, default=1, help="independent samples (k of pass@k; default 1)")
    g.add_argument("--turns", type=int, default=4, help="replies per sample, the first one included (default 4)")
    g.add_argument("--optimize", type=int, default=0, metavar="N",
                   help="after a kernel verifies, up to N more replies in which the model sees its kernel's "
                   "modeled speed (time against eager and the floor, pipes, time by line, waits) and writes a "
                   "faster one; the fastest verified kernel is kept (default 0; needs the lowering)")
    g.add_argument("--temperature", type=float, help="sampling temperature (default 0.2 for one sample, 0.8 for "
                   "several)")
    g.add_argument("--best", action="store_true", help="run every sample and keep the verified kernel with the "
                   "best modeled time (default: stop at the first verified sample)")
    g.add_argument("--backend", default="auto", choices=("auto", "sim", "npu"),
                   help="where the lowered kernel runs (default: npu if CANN and an NPU are present, else sim)")
    g.add_argument("--chip", default="910B2", help="chip profile (910B1 910B2 910B3 910B4 310P3)")
    g.add_argument("--out", help="output directory (default kernels_out/<op>)")
    g.add_argument("--force", action="store_true", help="replace an existing output directory")
    g.add_argument("--seed", type=int, default=0, help="seed of the first verification trial and of the first "
                   "sample's request (sample i sends seed+i-1; the response cache is keyed on it)")
    g.add_argument("--trials", type=int, default=DEFAULT_TRIALS,
                   help=f"verification trials per reply (default {DEFAULT_TRIALS})")
    g.add_argument("--inputs", choices=INPUT_POLICIES, default="adversarial", help=INPUTS_HELP)
    g.add_argument("--precision", choices=PRECISIONS, default="ours", help=PRECISION_HELP)
    g.add_argument("--max-bytes", type=int, default=64 << 20,
                   help="verify on reduced shapes when the op's tensors exceed this many bytes (default 64 MiB)")
    g.add_argument("--cache", choices=("on", "off", "replay"),
                   help="LLM response cache: on (read and record; default, or $ASCENDCRAFT_LLM_CACHE), off, or "
                   "replay (read only, fail on a miss)")
    g.add_argument("--timeout", type=float, help="seconds to wait for one reply (default 300)")
    g.add_argument("--no-lower", action="store_true", help="stop at the interpreter: do not lower verified kernels "
                   "to AscendC (by default each verified reply is lowered and run on the backend, and a failure "
                   "there goes back to the model too)")
    g.add_argument("--dry-run", action="store_true", help="print the prompt (system and task messages) that "
                   "would be sent, and stop: no model, no network, nothing written")
    g.add_argument("--json", action="store_true", help="print one JSON document, report.json as its result, "
                   "instead of the summary (with --dry-run: the messages)")


def retry_printer(args):
    """A line on stderr for every retried model call, unless --quiet (a retry wait is never silent)."""
    import sys
    if getattr(args, "quiet", False):
        return None

    def on_retry(client, attempt, delay, err):
        line = f"... {client.retry_note(attempt, delay, err)}"
        progress = getattr(args, "progress", None)
        if progress is not None and progress.animated:
            progress.write(line)          # above the status line, which stays
        else:
            print(line, file=sys.stderr, flush=True)
    return on_retry


def make_client(args, config, cache=None):
    """The CLI's model client: the response cache of --cache, and retries reported on stderr."""
    from .cache import ResponseCache
    from .client import LLMClient
    client = LLMClient(config, cache=cache if cache is not None else ResponseCache(mode=getattr(args, "cache", None)))
    printer = retry_printer(args)
    if printer is not None:
        client.on_retry = lambda attempt, delay, err: printer(client, attempt, delay, err)
    return client


def save_generation(result, out, *, force: bool) -> Path:
    """Write a generation's folder: its report and conversations, and for a verified kernel that
    was lowered, the AscendC sources, every level and the timeline (as ``lower`` writes them)."""
    write_extra = None
    if result.verified and result.after is not None:
        from ..results import write_lowered, write_timeline

        def write_extra(d):
            write_lowered(result.after, d)
            write_timeline(result.after, d)   # timeline.json / .png of the lowered kernel's modeled run
    return result.save(out, force=force, write_extra=write_extra)


def dry_run(args) -> int:
    """``gen --dry-run``: the first messages of every sample, as the model would receive them."""
    import sys
    from .config import NoModelConfigured, resolve
    from .generate import default_temperature, first_prompt
    try:
        model = resolve(args.model, args.api_base, timeout=args.timeout).model
    except NoModelConfigured:     # none is needed to see the prompt
        model = None
    task, prompt = first_prompt(args.op, chip=args.chip, max_bytes=args.max_bytes, lowering=not args.no_lower)
    temperature = args.temperature if args.temperature is not None else default_temperature(max(args.samples, 1))
    out_ = getattr(args, "stdout", None)
    if args.json:
        from ..cli import json_document
        print(json_document("gen", "dry-run", 0, result={
            "op": task.name, "model": model, "temperature": temperature, "seed": args.seed,
            "examples": prompt.examples, "category": prompt.category, "warnings": prompt.warnings,
            "messages": prompt.messages}), file=out_)
        return 0
    n = len(prompt.messages)
    for i, m in enumerate(prompt.messages, 1):
        print(f"===== message {i} of {n}: {m['role']} =====", file=out_)
        print(m["content"], end="" if m["content"].endswith("\n") else "\n", file=out_)
    if not getattr(args, "quiet", False):
        for note in prompt.warnings:
            print(f"warning: {note}", file=sys.stderr)
        size = sum(len(m["content"]) for m in prompt.messages)
        print(f"dry run: {n} messages, {size} characters, examples {', '.join(prompt.examples) or 'none'}, "
              f"for {model or 'no model configured'} at temperature {temperature:g}; nothing was sent",
              file=sys.stderr)
    return 0


def run(args) -> int:
    if getattr(args, "dry_run", False):
        return dry_run(args)
    from ..outdir import check_writable, default_out
    from .config import resolve
    from .generate import generate

    if args.optimize and args.no_lower:
        from ..errors import UserError
        raise UserError("--optimize needs the modeled time of the lowered kernel, and --no-lower skips the lowering",
                        hint="drop one of the two flags")
    config = resolve(args.model, args.api_base, timeout=args.timeout)   # no model: one message, exit 2
    out = Path(args.out) if args.out else default_out(args.op)
    check_writable(out, force=args.force)   # before any model call: never replace a result silently
    from ..progress import Progress
    progress = getattr(args, "progress", None) or Progress(verbose=getattr(args, "verbose", False),
                                                           quiet=getattr(args, "quiet", False))
    say = progress.callback
    client = make_client(args, config)
    after_verify = None
    if not args.no_lower:
        from ..lower import lower_checked, resolve_backend
        backend = resolve_backend(args.backend)   # a missing toolkit is the user's error, before any model call

        def after_verify(checked):   # lowering passes (with the model as their assist) and the backend
            return lower_checked(checked, chip=args.chip, backend=backend, trials=args.trials, seed=args.seed,
                                 assist=client.ask, progress=say)
    result = generate(args.op, samples=args.samples, turns=args.turns, temperature=args.temperature,
                      best=args.best, chip=args.chip, backend=args.backend, trials=args.trials, seed=args.seed,
                      inputs=args.inputs, precision=args.precision,
                      max_bytes=args.max_bytes, client=client, progress=say, debug=getattr(args, "debug", False),
                      after_verify=after_verify, optimize=args.optimize)
    written = save_generation(result, out, force=args.force)
    code = 0 if result.verified else 1
    if args.json:
        from ..cli import json_document
        text = json_document("gen", "passed" if code == 0 else "failed", code, result=result.report)
    else:
        lines = [result.summary()]
        if result.verified:
            lines.append("\n" + result.check.summary())
        if result.verified and result.after is not None:
            lines.append(result.after.summary())
        extra = ", ascendc/, passes/" if result.verified and result.after is not None else ""
        if result.verified and result.after is not None:
            extra += "".join(f", {f}" for f in result.after.timeline_files.values())
        lines.append(f"  wrote {written}/ (report.md, llm/{', kernel.dsl' if result.verified else ''}{extra})")
        text = "\n".join(lines)
    progress.close()     # progress ends before the result goes to stdout
    print(text, file=getattr(args, "stdout", None))   # the CLI's stdout (sys.stdout is stderr while commands run)
    return code
