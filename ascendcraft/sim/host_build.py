"""Build a CANN project's op_host sources against the simulator's host headers, linked with the host harness
(``sim/host/host_main.cpp``, compiled once per simulator version), into a cached executable. A source that
does not compile is a :class:`HostBuildError` naming the file and line and, where the compiler says a name is
not declared or not a member, the host API the simulator does not provide."""
from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from . import build
from .build import INCLUDE_DIR, PKG_DIR, SECCOMP_FLAGS, SECCOMP_LIBS, SimBuildError, run_compiler, sandbox_support
from .cache import cache_dir
from .host_project import Project
from .includes import ASM_HINT, first_escape, inline_asm_problem
from .startup import HINT as STARTUP_HINT, startup_problem

HOST_DIR = PKG_DIR / "host"                     # host_main.cpp and the headers only it includes
#: op_host code is built as CANN builds it for the host (C++17), with ASC_SIM_HOST for the shared tiling macros
HOST_CXXFLAGS = ("-std=c++17", "-O1", "-g0", "-fno-strict-aliasing", "-pthread", "-DASC_SIM_HOST=1")
HOST_FORMAT = "1"
HOST_SETUP = "asc_sim_host_setup_before_op_code"    # host_setup.h's start-up function, installing the sandbox


class HostBuildError(SimBuildError):
    """The op_host sources do not compile. ``missing_headers`` holds (header, file, line), ``missing_apis``
    (API, file, line) for the names the compiler did not find, ``compiler_output`` the errors."""

    def __init__(self, message: str, *, hint: str | None = None, missing_headers=(), missing_apis=(),
                 compiler_output: str = ""):
        super().__init__(message, hint=hint)
        self.missing_headers = tuple(missing_headers)
        self.missing_apis = tuple(missing_apis)
        self.compiler_output = compiler_output


@dataclass(frozen=True)
class HostArtifact:
    exe: Path
    key: str
    sources: tuple[str, ...]
    sandboxed: bool
    cached: bool
    build_seconds: float


def _flags() -> tuple[tuple[str, ...], tuple[str, ...]]:
    sandboxed, _ = sandbox_support()
    return HOST_CXXFLAGS + (SECCOMP_FLAGS if sandboxed else ()), (SECCOMP_LIBS if sandboxed else ())


def _harness_sources() -> dict[str, str]:
    """The host harness's sources by name (part of every host build's key)."""
    return {p.name: p.read_text() for p in sorted(HOST_DIR.iterdir()) if p.suffix in (".cpp", ".h")}


def _harness_object(cxxflags: tuple[str, ...]) -> Path:
    """host_main.cpp compiled once per simulator version and flags (its files' text is part of the key)."""
    command = ["g++", *cxxflags, f"-I{INCLUDE_DIR}", f"-I{PKG_DIR}", "-c", "host_main.cpp", "-o", "host_main.o"]
    return build._compiled_once("the host harness", "hostrt", command, _harness_sources()) / "host_main.o"


def build_host(project: Project) -> HostArtifact:
    """The project's op_host sources compiled and linked with the host harness; cached by content hash."""
    cxxflags, libs = _flags()
    files = {f"op_host/{name}": text for name, text in project.host_files.items()}
    escape = first_escape(files)
    if escape:
        raise HostBuildError(escape, hint="an op_host source may include its own files and the headers the "
                                          "simulator provides")
    key = build.content_key(HOST_FORMAT, json.dumps(_harness_sources()), " ".join(cxxflags + libs),
                            json.dumps(sorted(files.items())), json.dumps(project.host_sources))
    out_dir = cache_dir() / f"host-{key}"
    exe = out_dir / "host.bin"
    sandboxed = bool(libs)
    if exe.exists():
        return HostArtifact(exe, key, project.host_sources, sandboxed, True, 0.0)
    harness = _harness_object(cxxflags)
    # CANN links the tiling, proto and def sources into different libraries; one header's non-inline
    # function in two of them is one symbol here, so the first definition is kept (the harness's first:
    # op code cannot replace main() or the harness's checks)
    elapsed = compile_and_link(
        out_dir, files, [f"op_host/{name}" for name in project.host_sources],
        compile_args=lambda tmp: [*cxxflags, f"-I{INCLUDE_DIR}", f"-I{tmp / 'op_host'}"],
        link_args=(*cxxflags, str(harness)), link_tail=("-Wl,--allow-multiple-definition", *libs),
        label=f"the op_host sources of {project.root.name}", folder="op_host",
        meta={"sources": project.host_sources})
    return HostArtifact(exe, key, project.host_sources, sandboxed, False, elapsed)


def compile_and_link(out_dir: Path, files: dict, sources: list, *, compile_args, link_args: tuple, link_tail: tuple,
                     label: str, folder: str, meta: dict | None = None) -> float:
    """``files`` written into a build folder, each of ``sources`` compiled there (``compile_args(folder)``, up to
    four at once), the objects linked into ``host.bin`` between ``link_args`` and ``link_tail``, the executable
    checked to run the harness's set-up before any code of the user's (startup.py), and the folder renamed to
    ``out_dir``: concurrent builds never see half of one. Returns the build's seconds; a failure raises
    :class:`HostBuildError` naming the file and line."""
    tmp = Path(tempfile.mkdtemp(prefix=f"{out_dir.name}.", dir=out_dir.parent))
    try:
        for name, text in files.items():
            (tmp / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp / name).write_text(text)
        t0 = time.perf_counter()
        flags = list(compile_args(tmp))

        def compile_one(i_name):   # to assembly: inline assembly is refused before anything is assembled
            i, name = i_name
            return run_compiler(["g++", *flags, "-S", name, "-o", f"obj{i}.s"], tmp, name)

        with ThreadPoolExecutor(max(1, min(4, len(sources), os.cpu_count() or 1))) as pool:
            procs = list(pool.map(compile_one, enumerate(sources)))
        failed = [p.stderr for p in procs if p.returncode != 0]
        if failed:
            raise host_build_error("\n".join(failed), label, folder=folder)
        objs = [f"obj{i}.s" for i in range(len(sources))]
        for obj in objs:
            problem = inline_asm_problem((tmp / obj).read_text(errors="replace"), label, files)
            if problem:
                raise HostBuildError(problem, hint=ASM_HINT)
        link = run_compiler(["g++", *link_args, *objs, *link_tail, "-o", "host.bin"], tmp, label)
        if link.returncode != 0:
            raise host_build_error(link.stderr, label, linking=True, folder=folder)
        problem = startup_problem(tmp / "host.bin", HOST_SETUP, label)
        if problem:
            raise HostBuildError(problem, hint=STARTUP_HINT)
        elapsed = time.perf_counter() - t0
        (tmp / "meta.json").write_text(json.dumps({**(meta or {}), "build_seconds": elapsed}))
        for o in objs:
            (tmp / o).unlink(missing_ok=True)
        try:
            tmp.rename(out_dir)
        except OSError:  # another process built it first
            pass
        return elapsed
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


# ----------------------------------------------------------------------------- compiler errors
# the user's files are compiled from the build folder by relative paths; the simulator's headers are absolute
_LOC = re.compile(r"^([^/:\s][^:\s]*):(\d+):(?:\d+:)?\s*(fatal error|error):\s*(.*)$")
_ANY_LOC = re.compile(r"^([^:\s]+):(\d+):(?:\d+:)?\s*(fatal error|error):\s*(.*)$")
_CONTEXT = re.compile(r"^([^/:\s][^:\s]*):(\d+):(?:\d+:)?\s*(required from|note:|  )")
_NO_MEMBER = re.compile(r"['‘](?:const )?(?:class |struct |union )?([\w:<>, ]+?)['’] has no member named ['‘](\w+)['’]")
_NOT_MEMBER = re.compile(r"['‘](\w+)['’] is not a member of ['‘]([\w:<>, ]+?)['’]")
_IN_NAMESPACE = re.compile(r"['‘](\w+)['’] in (?:namespace|['‘]class|['‘]struct) ['‘]?([\w:]+)['’]? does not name a")
_NOT_DECLARED = re.compile(r"['‘](\w+)['’] (?:was not declared in this scope|has not been declared|does not name a type)")
_NO_MATCH = re.compile(r"no matching function for call to ['‘]([\w:<>, ]+?)\(")
_NO_FILE = re.compile(r"^([^:\s]+):\s*No such file or directory")
_UNDEFINED = re.compile(r"undefined reference to [`‘']([^'’(]+)")


def host_build_error(stderr: str, label: str, linking: bool = False, folder: str = "op_host") -> HostBuildError:
    """The first problem of a failed build said as the user's: the header or host API the simulator lacks
    and where it is used, with the compiler's errors as the hint. ``label`` names the sources ("the op_host
    sources of X"), ``folder`` where a missing header was looked for."""
    headers, apis, located = [], [], []
    last_ctx = None
    for line in stderr.splitlines():
        ctx = _CONTEXT.match(line)
        if ctx:
            last_ctx = (ctx.group(1), int(ctx.group(2)))
        m = _LOC.match(line) or _ANY_LOC.match(line)
        if not m:
            continue
        file, lineno, msg = m.group(1), int(m.group(2)), m.group(4)
        if file.startswith("/") and last_ctx:
            file, lineno = last_ctx
        located.append(f"{file}:{lineno}: {msg}")
        nf = _NO_FILE.match(msg)
        if nf:
            headers.append((nf.group(1), file, lineno))
            continue
        api = _api_name(msg)
        if api:
            apis.append((api, file, lineno))
    if linking:
        for name in _UNDEFINED.findall(stderr):
            apis.append((name.strip(), "(link)", 0))
    hint = "\n".join(located[:20]) or "\n".join(stderr.splitlines()[:20])
    if headers:
        h, f, n = headers[0]
        more = f" (and {len(headers) - 1} more)" if len(headers) > 1 else ""
        msg = (f"unsupported host header <{h}> at {f}:{n}{more}: the simulator does not provide it and {folder} has "
               f"no such file")
    elif apis:
        a, f, n = apis[0]
        others = sorted({x[0] for x in apis[1:]} - {a})
        more = f" (also: {', '.join(others[:8])}{' ...' if len(others) > 8 else ''})" if others else ""
        where = f" at {f}:{n}" if n else " (at link time: declared, never defined)"
        msg = f"unsupported host API {a}{where}{more}"
    elif located:
        msg = f"{label} do not compile: {located[0]}"
    else:
        msg = f"{label} do not build"
    return HostBuildError(msg, hint=hint, missing_headers=headers, missing_apis=apis, compiler_output=stderr)


def _api_name(msg: str) -> str | None:
    m = _NO_MEMBER.search(msg)
    if m:
        return f"{_clean(m.group(1))}::{m.group(2)}"
    m = _NOT_MEMBER.search(msg) or _IN_NAMESPACE.search(msg)
    if m:
        return f"{_clean(m.group(2))}::{m.group(1)}"
    m = _NOT_DECLARED.search(msg)
    if m:
        return m.group(1)
    m = _NO_MATCH.search(msg)
    if m:
        return f"{_clean(m.group(1))}(...) with these arguments"
    return None


def _clean(name: str) -> str:
    return re.sub(r"\s+", " ", name).strip()
