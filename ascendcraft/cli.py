"""The ``ascendcraft`` command line. Every user error is rendered once here (exit 2)."""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys

from . import __version__
from .errors import AscendcraftError, render_interrupt
from .acceptance import PRECISION_HELP, PRECISIONS
from .distributions import DEFAULT_TRIALS, INPUT_POLICIES, INPUTS_HELP


#: The shape of every ``--json`` document (README.md, "Machine-readable output"); raised when a
#: key is removed or changes meaning, not when one is added.
JSON_SCHEMA = 1


class _UsageError(SystemExit):
    """A command line argparse refuses (exit 2, its text already on stderr), with its message
    kept for :func:`main`'s JSON document."""

    def __init__(self, message: str):
        super().__init__(2)
        self.message = message


class _Parser(argparse.ArgumentParser):
    def error(self, message):          # subcommand parsers are of this class too (add_subparsers)
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise _UsageError(message)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="ascendcraft", description="PyTorch operators to verified AscendC kernels "
                                "through a tile DSL.")
    p.add_argument("--version", action="version", version=f"ascendcraft {__version__}")
    p.add_argument("--debug", action="store_true", help="show Python tracebacks for errors")
    p.add_argument("-v", "--verbose", action="store_true", help="progress on stderr even when it is not a terminal")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    # The same flags after the subcommand (SUPPRESS: an absent flag does not reset the global one).
    common = _Parser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show Python tracebacks for errors")
    common.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                        help="progress on stderr even when it is not a terminal")
    common.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS, help="no progress on stderr")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    c = sub.add_parser("check", parents=[common], help="parse, check and interpret a DSL kernel, compare it with the op's PyTorch "
                       "reference", description="Parse, type-check and interpret a tile-DSL kernel and compare it "
                       "with the PyTorch reference of an op file (MultiKernelBench/KernelBench format).")
    c.add_argument("kernel", help="the tile DSL kernel (.dsl)")
    c.add_argument("--op", required=True, help="the op file: class Model(nn.Module), get_inputs(), "
                   "get_init_inputs()")
    c.add_argument("--trials", type=int, default=DEFAULT_TRIALS,
                   help=f"verification trials (default {DEFAULT_TRIALS})")
    c.add_argument("--inputs", choices=INPUT_POLICIES, default="adversarial", help=INPUTS_HELP)
    c.add_argument("--precision", choices=PRECISIONS, default="ours", help=PRECISION_HELP)
    c.add_argument("--seed", type=int, default=0, help="seed of the first trial (trial t uses seed+t)")
    c.add_argument("--chip", default="910B2", help="chip profile for capacity checks and core count "
                   "(910B1 910B2 910B3 910B4 310P3)")
    c.add_argument("--max-bytes", type=int, default=64 << 20,
                   help="verify on reduced shapes when the op's tensors exceed this many bytes (default 64 MiB)")
    c.add_argument("--full-shapes", action="store_true", help="always verify at the op's real shapes")
    c.add_argument("--json", action="store_true", help="print the result as one JSON document (README.md, "
                   "\"Machine-readable output\")")

    lo = sub.add_parser("lower", parents=[common], help="lower a checked DSL kernel to AscendC, compile it and run it on a backend",
                        description="Check a tile-DSL kernel against an op, run the lowering passes (each "
                        "re-checked by the interpreter), emit AscendC, build and verify it on the backend and "
                        "model its time on the chip. Writes kernels_out/<op>/.")
    lo.add_argument("kernel", help="the tile DSL kernel (.dsl)")
    lo.add_argument("--op", required=True, help="the op file (MultiKernelBench format)")
    lo.add_argument("--chip", default="910B2", help="chip profile (910B1 910B2 910B3 910B4 310P3)")
    lo.add_argument("--backend", default="auto", choices=("auto", "sim", "npu"),
                    help="where the AscendC kernel runs (default: npu if CANN and an NPU are present, else sim)")
    lo.add_argument("--out", help="output directory (default kernels_out/<op>, the op file's name, or its "
                    "folder's name for .../<op>/op.py)")
    lo.add_argument("--force", action="store_true", help="replace an existing output directory")
    lo.add_argument("--trials", type=int, default=DEFAULT_TRIALS,
                    help=f"verification trials of the source and the backend run (default {DEFAULT_TRIALS}; each "
                    "pass is checked on the first two)")
    lo.add_argument("--inputs", choices=INPUT_POLICIES, default="adversarial", help=INPUTS_HELP)
    lo.add_argument("--precision", choices=PRECISIONS, default="ours", help=PRECISION_HELP)
    lo.add_argument("--seed", type=int, default=0, help="seed of the first trial")
    lo.add_argument("--max-bytes", type=int, default=64 << 20,
                    help="verify on reduced shapes when the op's tensors exceed this many bytes (default 64 MiB)")
    lo.add_argument("--no-model", action="store_true", help="skip the cost model at the op's real shapes")
    lo.add_argument("--model", help="an LLM (litellm model string, as for gen) the passes may ask to lower a "
                    "statement no rule covers; its answer is checked like any pass output (default: none)")
    lo.add_argument("--api-base", help="base URL of the model's server (OpenAI-compatible servers, vLLM, ...)")
    lo.add_argument("--json", action="store_true", help="print one JSON document, report.json as its result, "
                    "instead of the summary")

    from .llm import command as gen_command   # no litellm import here: it is imported on first use
    gen_command.add_parser(sub, parents=[common])
    from .bench import command as bench_command
    bench_command.add_parser(sub, parents=[common])
    from .export import command as export_command
    export_command.add_parser(sub, parents=[common])
    from .reward import command as reward_command
    reward_command.add_parser(sub, parents=[common])
    from .cann import command as sim_op_command
    sim_op_command.add_parser(sub, parents=[common])
    from .flags import bound_all
    bound_all(sub)          # every numeric flag of every command gets its range (ascendcraft/flags.py)
    return p


def emit(args, text: str) -> None:
    """The one way a command prints its result on stdout: progress on stderr ends first."""
    args.progress.close()
    print(text, file=args.stdout)


def json_document(command: str | None, status: str, exit_code: int, *, result=None, error=None) -> str:
    """Every ``--json`` output, of every command and outcome: the same six keys. ``status`` is
    passed, failed (ran; the kernel is wrong or not verifiable: exit 1), done (bench ran its
    tasks), dry-run, or error (did not run: exit 2 or 3, ``error`` says why); ``result`` is the
    command's own report (README.md, "Machine-readable output")."""
    return json.dumps({"schema": JSON_SCHEMA, "command": command, "status": status, "exit_code": exit_code,
                       "result": result, "error": error}, indent=2, default=str)


def emit_json(args, status: str, exit_code: int, result) -> None:
    emit(args, json_document(args.command, status, exit_code, result=result))


def _preflight(args) -> None:
    """Before any work: every input path is of the kind the command reads and not too large
    (ascendcraft/inputs.py), and the simulator's build cache can be written when it will be used."""
    from . import inputs
    if args.command in ("check", "lower"):
        inputs.check_file(args.kernel, "kernel file")
    if args.command in ("check", "lower", "gen") or (args.command == "sim-op" and args.op is not None):
        inputs.check_op(args.op)
    if args.command == "bench":
        for task in args.tasks:
            inputs.check_file_or_folder(task, "op file")
        if args.kernels is not None:
            inputs.check_folder(args.kernels, "--kernels")
    builds = args.command in ("lower", "bench", "sim-op") or (args.command == "gen" and not args.no_lower and not args.dry_run)
    backend = getattr(args, "backend", "sim")      # sim-op runs on the simulator only
    if builds and backend != "npu":
        from .lower import resolve_backend
        if resolve_backend(backend) == "sim":
            from .sim.cache import cache_dir
            cache_dir()


def _cmd_check(args) -> int:
    from .checking import check_kernel
    result = check_kernel(args.kernel, args.op, trials=args.trials, seed=args.seed, chip=args.chip,
                          max_bytes=args.max_bytes, full_shapes=args.full_shapes, inputs=args.inputs,
                          progress=args.progress.callback, plan=True, precision=args.precision)
    # what check accepts, lower lowers: a kernel the lowering refuses is not accepted, however
    # right it is in the interpreter (the plan names the statement and a rewrite)
    refused = getattr(result.plan, "refused", None) is not None
    code = 0 if result.passed and not refused else 1
    if args.json:
        emit_json(args, "passed" if code == 0 else "failed", code, {**result.to_json(), "lowerable": not refused})
    else:
        emit(args, result.summary() + ("\nNOT LOWERABLE  right in the interpreter, but `lower` refuses the statement "
                                       "above: rewrite it with the forms of docs/dsl.md, \"Writing kernels that "
                                       "lower to AscendC\"" if refused and result.passed else ""))
    return code


def _cmd_lower(args) -> int:
    from pathlib import Path

    from .lower import lower
    from .results import write_failure, write_output
    from .outdir import check_writable, default_out
    from .passes import PassError
    out = Path(args.out) if args.out else default_out(args.op)    # the same default as gen's
    check_writable(out, force=args.force)   # before any work: never overwrite a good result silently
    client = None
    if args.model:
        from .llm.command import make_client
        from .llm.config import resolve
        client = make_client(args, resolve(args.model, args.api_base))
    try:
        result = lower(args.kernel, args.op, chip=args.chip, backend=args.backend, trials=args.trials,
                       seed=args.seed, max_bytes=args.max_bytes, model_time=not args.no_model,
                       inputs=args.inputs, assist=client.ask if client else None,
                       progress=args.progress.callback, precision=args.precision)
        if client is not None:
            result.llm = {"model": client.config.model, **client.usage.to_json()}
    except PassError as err:
        where = write_failure(err, out)
        err.hint = (err.hint + "; " if err.hint else "") + (f"both programs are in {where / 'passes'}" if err.after is not None
                                                     else f"the program before the pass is in {where / 'passes'}")
        if client is None and "no AscendC selection rule" in err.message:   # said here, not to a model
            err.hint += "; or run lower with --model so the pass can ask an LLM to lower the statement"
        raise
    except AscendcraftError as err:
        if getattr(err, "lowered", None) is not None:     # failed on the backend: keep what was emitted
            where = write_failure(err, out)
            err.hint = (err.hint + "; " if err.hint else "") + f"the emitted kernel and every level are in {where}"
        raise
    write_output(result, out, force=args.force)
    if args.json:
        emit_json(args, "passed", 0, result.to_json())
    else:
        emit(args, result.summary() + "\n" + _wrote_line(result, out))
    return 0


def _wrote_line(result, out) -> str:
    """The last line of `lower`: the results folder and what is in it."""
    timeline = getattr(result, "timeline_files", None) or {}
    files = ["report.md", *(timeline[k] for k in ("json", "png") if k in timeline), "ascendc/", "passes/"]
    notes = [n for n in (result.project_note, getattr(result, "timeline_note", None)) if n]
    if result.project_note is None:
        files.append("project/ for CANN and MultiKernelBench")
    return f"  wrote {out}/ ({', '.join(files)})" + "".join(f"; {n}" for n in notes)


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_MODE", "PRODUCTION")
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = _parser().parse_args(argv)
    except _UsageError as err:
        options = argv[:argv.index("--")] if "--" in argv else argv
        if "--json" in options:
            command = next((a for a in options if a in ("check", "lower", "gen", "bench", "export", "reward", "sim-op")), None)
            print(_error_document(command, "usage error", err.message, 2,
                                  hint=f"see `{' '.join(filter(None, ('ascendcraft', command)))} --help`"))
        return 2
    if args.command is None:
        _parser().print_help()
        return 2
    from .errors import handle_interrupts
    handle_interrupts()
    # Results go to stdout, everything else (progress, op files' own prints) to stderr, so
    # `--json` output stays parseable whatever the op file prints.
    args.stdout = sys.stdout
    from .progress import Progress
    args.progress = Progress(verbose=args.verbose, quiet=args.quiet)
    try:
        from .llm import command as gen_command
        with contextlib.redirect_stdout(sys.stderr):
            try:
                from .bench import command as bench_command
                from .export import command as export_command
                from .reward import command as reward_command
                from .cann import command as sim_op_command
                _preflight(args)
                return {"check": _cmd_check, "lower": _cmd_lower, "gen": gen_command.run,
                        "bench": bench_command.run, "export": export_command.run,
                        "reward": reward_command.run, "sim-op": sim_op_command.run}[args.command](args)
            finally:
                args.progress.close()
    except AscendcraftError as err:
        args.progress.close()
        if args.debug:
            raise
        print(str(err), file=sys.stderr)
        _json_error(args, err.kind, err.message, err.exit_code, hint=err.hint, location=_location(err))
        return err.exit_code
    except KeyboardInterrupt as err:
        args.progress.close()
        print(render_interrupt(err), file=sys.stderr)
        _json_error(args, "interrupted", render_interrupt(err), 130)
        return 130
    except BrokenPipeError:  # output piped into e.g. `head`, which stopped reading: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as err:  # a bug in ascendcraft, not the user's fault
        args.progress.close()
        if args.debug:
            raise
        print(f"internal error: {type(err).__name__}: {err}\n  = hint: rerun with --debug for the traceback "
              "and report it", file=sys.stderr)
        _json_error(args, "internal error", f"{type(err).__name__}: {err}", 3)
        return 3


def entry() -> int:
    """The ``ascendcraft`` command: :func:`main` in a forked worker, so that code in an op file or
    a kernel that ends the process itself (``os._exit``, a signal it sends itself) cannot decide
    the exit code or end the command silently: the worker reports its exit code through a pipe,
    and a worker that ends without one is reported, exit 2."""
    if not hasattr(os, "fork") or os.environ.get("ASCENDCRAFT_NO_WORKER"):
        return main()
    import signal
    from .processes import adopt_orphans, end_descendants, fork_worker

    stops = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}

    def worker(write_end: int) -> int:
        code = 3
        try:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)
            code = main()
        except SystemExit as done:             # argparse: --help, --version, a usage error
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 2)
        except KeyboardInterrupt as err:       # a stop that came before main handles its own
            print(render_interrupt(err), file=sys.stderr)
            code = 130
        except BaseException as err:           # --debug re-raises: the traceback is what was asked for
            import traceback
            traceback.print_exc()
            code = getattr(err, "exit_code", 3)    # a user error keeps its exit code
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            try:
                os.write(write_end, f"exit {code}\n".encode())
            except OSError:              # the command was killed: nobody reads it
                pass
        return code
    adopt_orphans()          # a compiler's children, orphaned when the worker is killed, end with the command
    # Ctrl-C, SIGTERM, SIGHUP and this process's death reach the worker as SIGINT, which it turns
    # into a clean stop (its output folder as it was, "interrupted"); a SIGTERM the op file sends
    # itself still ends only the worker, and is reported below. They wait (blocked) from before the
    # fork until forward is installed: one that came in between ended this process and orphaned the run.
    signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    try:
        pid, read_end = fork_worker(worker, parent_death=signal.SIGINT, channel=True)

        def forward(signum, frame):
            try:
                os.kill(pid, signal.SIGINT)
            except ProcessLookupError:
                pass
        for sig in stops:
            signal.signal(sig, forward)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)
    # The pipe is read as it fills (a full pipe must never stop the worker), on this thread: a
    # second thread would make this process's death reach the worker twice (Linux sends the
    # death signal again when the child, handed to that thread, is reparented once more).
    import select
    heard: list[bytes] = []
    os.set_blocking(read_end, False)
    while True:
        select.select([read_end], [], [], 0.2)
        ended = _read_available(read_end, heard)
        done, status = os.waitpid(pid, 0 if ended else os.WNOHANG)    # at the pipe's end: wait for the exit
        if done:
            break
    end_descendants()                # after them no process holds the pipe's other end
    _read_available(read_end, heard)
    told = [line.partition(" ") for line in b"".join(heard).decode().splitlines()]
    exits = [int(value) for kind, _, value in told if kind == "exit"]
    if exits:        # a stop by SIGTERM or SIGHUP is an interruption too: 130, as --json's exit_code says
        return exits[-1]
    from pathlib import Path
    from .outdir import reap_leftovers
    for kind, _, value in told:          # the output folders the worker was writing: remove its partial copies
        if kind == "out":
            reap_leftovers(Path(json.loads(value)))
    how = (f"was killed by signal {signal.Signals(os.WTERMSIG(status)).name}: another process sent it, or"
           if os.WIFSIGNALED(status)
           else f"ended with exit status {os.WEXITSTATUS(status)} before finishing:")
    print(f"error: the run {how} code in the op file (or a library it calls) ended the process "
          f"(os._exit(), a signal sent to itself, or running out of memory)\n"
          f"  = hint: an op file must only define Model, get_inputs() and get_init_inputs(); rerun with "
          f"ASCENDCRAFT_NO_WORKER=1 and --debug to see where", file=sys.stderr)
    return 2


def _read_available(fd: int, into: list[bytes]) -> bool:
    """What a non-blocking pipe holds now; True at its end (no writer is left)."""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return False
        if not chunk:
            return True
        into.append(chunk)


def _location(err) -> dict | None:
    span, source = getattr(err, "span", None), getattr(err, "source", None)
    if span is None:
        return None
    return {"file": source.name if source is not None else None, "line": span.line, "column": span.column}


def _error_document(command: str | None, kind: str, message: str, code: int, *, hint: str | None = None,
                    location=None) -> str:
    return json_document(command, "error", code, error={"kind": kind, "message": message, "hint": hint,
                                                        "location": location})


def _json_error(args, kind: str, message: str, code: int, *, hint: str | None = None, location=None) -> None:
    """With --json, every failure is one JSON document on stdout too (the text stays on stderr)."""
    if getattr(args, "json", False):
        print(_error_document(args.command, kind, message, code, hint=hint, location=location), file=args.stdout)


if __name__ == "__main__":
    sys.exit(main())
