"""Build AscendC kernels against the simulator headers: g++ with the harness, cached by content
hash, the seccomp sandbox probed once, and foreign host code (``<<<...>>>`` launches, a host
``main``) rewritten so a hand-written kernel file builds too."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any


from ..chips import DEFAULT_CHIP, load_chip
from ..errors import UserError
from .asserts import unterminated_asserts
from .cache import cache_dir
from .launch import kill_session, popen_limited
from .startup import HINT as STARTUP_HINT, startup_problem
from .includes import ASM_HINT, HINT as INCLUDE_HINT, first_escape, inline_asm_problem
from .signature import Param, balanced_end, mask_code, parse_signature, registered_tiling_struct, strip_comments

PKG_DIR = Path(__file__).resolve().parent
INCLUDE_DIR = PKG_DIR / "include"
HARNESS = PKG_DIR / "harness.h"                 # the hooks, included at the end of each kernel's TU
HARNESS_MAIN = PKG_DIR / "harness_main.cpp"     # main(), compiled once per cache and linked in
HARNESS_SHARED = PKG_DIR / "harness_shared.h"
HARNESS_CHECKS = PKG_DIR / "harness_checks.h"  # the checks at the end of a run, included by HARNESS_MAIN
KERNEL_SETUP = "asc_sim_setup_before_kernel_code"   # harness_main.cpp's start-up function, installing the sandbox
SANDBOX_H = PKG_DIR / "sandbox.h"                 # the seccomp sandbox, shared with the host harness
RUNTIME_DIR = PKG_DIR / "runtime"               # the headers' function bodies, compiled once and linked in
DEFAULT_CXXFLAGS = ("-std=c++17", "-O1", "-Wall", "-fno-strict-aliasing", "-g0", "-pthread")
BUILD_FORMAT = "4"  # 4: tiling structs of optiling named at global scope in the kernel TU


class SimBuildError(UserError):
    """The kernel does not compile against the simulator headers."""



@dataclass
class KernelArtifact:
    kernel_name: str
    exe: Path
    key: str
    params: list[Param]
    chip: str
    lenient: bool
    tiling_struct: str | None
    warnings: list[str]
    source_name: str = "kernel.cpp"
    build_seconds: float = 0.0
    cached: bool = False
    sandboxed: bool = False  # linked with libseccomp: runs install the sandbox (see docs/simulator.md)




# ----------------------------------------------------------------------------- build
def _library_digest() -> str:
    """The simulator's sources, and this file, which assembles each kernel's translation unit (its
    launch defines): a change to either builds every kernel again."""
    h = hashlib.sha256()
    for p in sorted(INCLUDE_DIR.rglob("*")) + sorted(RUNTIME_DIR.glob("*.cpp")) + [HARNESS, HARNESS_MAIN,
                                                                                    HARNESS_SHARED, HARNESS_CHECKS,
                                                                                    SANDBOX_H, Path(__file__)]:
        if p.is_file():
            h.update(str(p.relative_to(PKG_DIR)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


_LIB_DIGEST: str | None = None


def content_key(build_format: str, *parts: str) -> str:
    """A build's cache key (24 hex digits): its format, the simulator's sources (_library_digest) and ``parts``."""
    global _LIB_DIGEST
    if _LIB_DIGEST is None:
        _LIB_DIGEST = _library_digest()
    h = hashlib.sha256()
    for part in (build_format, _LIB_DIGEST, *parts):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:24]

# ----------------------------------------------------------------------------- sandbox probe
_SECCOMP_PROBE = """#include <seccomp.h>
int main() {
    scmp_filter_ctx c = seccomp_init(SCMP_ACT_ALLOW);
    if (!c) return 1;
    int rc = seccomp_rule_add(c, SCMP_ACT_TRAP, SCMP_SYS(execve), 0);
    seccomp_release(c);
    return rc == 0 ? 0 : 1;
}
"""
SECCOMP_FLAGS = ("-DASC_SIM_SECCOMP=1",)
SECCOMP_LIBS = ("-lseccomp",)
_SANDBOX: tuple[bool, str] | None = None
_SANDBOX_LOCK = threading.Lock()


def _probe_key() -> str:
    """What the probe's answer depends on: the probe, the compiler, and libseccomp's header
    and library being there (installing or removing libseccomp-dev changes the key)."""
    h = hashlib.sha256(_SECCOMP_PROBE.encode())
    gxx = shutil.which("g++") or "g++"
    for path in (gxx, "/usr/include/seccomp.h", *sorted(str(p) for p in Path("/usr/lib").glob("*/libseccomp.so*")),
                 *sorted(str(p) for p in Path("/usr/lib").glob("libseccomp.so*"))):
        try:
            st = os.stat(path)
            h.update(f"{path}:{st.st_size}:{st.st_mtime_ns}".encode())
        except OSError:
            h.update(f"{path}:-".encode())
    return h.hexdigest()[:16]


def sandbox_support() -> tuple[bool, str]:
    """``(available, why not)``: whether kernels can be linked against libseccomp. A tiny probe
    is compiled, linked and run once; the answer is cached in the build cache (per compiler
    and libseccomp install) and in the process."""
    global _SANDBOX
    with _SANDBOX_LOCK:
        if _SANDBOX is not None:
            return _SANDBOX
        cache = cache_dir() / f"seccomp-probe-{_probe_key()}.json"
        try:
            data = json.loads(cache.read_text())
            _SANDBOX = (bool(data["ok"]), str(data["why"]))
            return _SANDBOX
        except (OSError, ValueError, KeyError):
            pass
        with tempfile.TemporaryDirectory(prefix="seccomp-probe.", dir=cache_dir()) as d:
            (Path(d) / "probe.cpp").write_text(_SECCOMP_PROBE)
            try:
                proc = subprocess.run(["g++", "probe.cpp", "-o", "probe", *SECCOMP_LIBS], cwd=d,
                                      capture_output=True, text=True, timeout=120)
                if proc.returncode != 0:
                    ok, why = False, ("libseccomp is not installed (no <seccomp.h> or -lseccomp; "
                                      "install the Debian package libseccomp-dev)")
                else:
                    run = subprocess.run([str(Path(d) / "probe")], capture_output=True, timeout=30)
                    ok, why = run.returncode == 0, ("" if run.returncode == 0 else
                                                    f"the libseccomp probe failed (exit status {run.returncode})")
            except (OSError, subprocess.TimeoutExpired) as e:
                ok, why = False, f"the libseccomp probe could not run: {e}"
        _SANDBOX = (ok, why)
        try:
            tmp = cache.with_name(cache.name + f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps({"ok": ok, "why": why}))
            os.replace(tmp, cache)
        except OSError:
            pass
        return _SANDBOX


def _launcher(kernel_name: str, params: list[Param]) -> str:
    args = []
    for i, p in enumerate(params):
        if p.kind == "scalar":
            field_ = "f" if p.is_float else "i"
            ctype = p.ctype.replace("const ", "").replace("&", "").strip()
            args.append(f"static_cast<{ctype}>(sc[{i}].{field_})")
        else:
            args.append(f"reinterpret_cast<{p.ctype}>(gm[{i}])")
    body = ", ".join(args)
    return (f"static void asc_sim_launch(uint8_t** gm, const asc_sim::ScalarArg* sc) {{\n"
            f"    (void)gm; (void)sc;\n    {kernel_name}({body});\n}}\n")


# ----------------------------------------------------------------------------- foreign host code
_CALLEE_RE = re.compile(r"((?:::\s*)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*(?:\s*<[^;{}()<>]*(?:<[^;{}()<>]*>[^;{}()<>]*)*>)?)"
                        r"\s*\Z")
_HOST_MAIN_RE = re.compile(r"\b(?:int|int32_t|auto)\s+main\s*\(")


def rewrite_host_launches(source: str, *, recorded: bool = False) -> str:
    """Turn every host-side ``kernel<<<blockDim, l2ctrl, stream>>>(args...)`` (not C++) into
    ``::asc_sim_host::launch(kernel, blockDim, l2ctrl, stream, args...)``, a no-op that still
    makes the compiler see every expression.  With ``recorded``, into
    ``::asc_sim_host::launch_named<kernel>(::asc_sim_host::LaunchConfig{blockDim, l2ctrl, stream}, args...)``,
    which the direct-launch host harness records (asc_sim/direct_launch.h).  Line numbers are preserved:
    the newlines of a rewritten launch follow it.  Sources without ``<<<`` are returned unchanged."""
    masked = mask_code(source)
    if "<<<" not in masked:
        return source
    out, pos = [], 0
    for m in re.finditer(r"<<<", masked):
        start = m.start()
        if start < pos:
            continue
        callee = _CALLEE_RE.search(masked[max(0, start - 400):start])
        close = masked.find(">>>", m.end())
        if callee is None or close < 0:
            continue
        k = close + 3
        while k < len(masked) and masked[k].isspace():
            k += 1
        if k >= len(masked) or masked[k] != "(":
            continue
        end = balanced_end(masked, k, "(", ")")
        if end < 0:
            continue
        cstart = start - len(callee.group(1)) - (len(masked[max(0, start - 400):start]) - callee.end(1))
        cfg = source[m.end():close].strip()
        args = source[k + 1:end - 1].strip()
        name = source[cstart:start].strip()
        if recorded:
            call = f"::asc_sim_host::launch_named<{name}>(::asc_sim_host::LaunchConfig{{{cfg}}}" + \
                (f", {args})" if args else ")")
        else:
            call = f"::asc_sim_host::launch({name}, {cfg}" + (f", {args})" if args else ")")
        call = " ".join(call.split())  # one line; the newlines go after it
        out.append(source[pos:cstart])
        out.append(call + "\n" * source[cstart:end].count("\n"))
        pos = end
    out.append(source[pos:])
    return "".join(out)


def _compiled_once(what: str, name: str, command: list[str], sources: dict[str, str] | None = None) -> Path:
    """``command`` (with its flags) run once per library version in a directory of the cache, which is
    returned: written under a temporary name and renamed, so concurrent builds never see a
    half-written result. ``sources`` are written into the directory first."""
    key = hashlib.sha256("\0".join((BUILD_FORMAT, _LIB_DIGEST or _library_digest(), " ".join(command),
                                    json.dumps(sources or {}, sort_keys=True))).encode())
    done = cache_dir() / f"{name}-{key.hexdigest()[:24]}"
    if done.is_dir():
        return done
    tmp = Path(tempfile.mkdtemp(prefix=done.name + ".", dir=cache_dir()))
    try:
        for file, text in (sources or {}).items():
            (tmp / file).write_text(text)
        proc = run_compiler(command, tmp, what)
        if proc.returncode != 0:
            raise SimBuildError(f"{what} does not compile (this is a bug of ascendcraft):\n"
                                + _trim_compiler_output(proc.stderr))
        try:
            tmp.rename(done)
        except OSError:  # another process built it first
            pass
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return done


def _runtime_object(cxxflags: tuple[str, ...], harness: bool = True) -> Path:
    """The harness's main() and the simulator's runtime (RUNTIME_DIR: the bodies of the headers'
    functions) compiled to one object that every kernel links: seconds of g++ that each kernel build
    would otherwise repeat. One translation unit, so the headers are parsed once. ``harness=False``:
    the runtime alone, for a program with a main() of its own (the direct-launch host harness)."""
    sources = [HARNESS_MAIN.name] if harness else []
    sources += [f"{RUNTIME_DIR.name}/{p.name}" for p in sorted(RUNTIME_DIR.glob("*.cpp"))]
    unity = "".join(f'#include "{src}"\n' for src in sources)
    command = ["g++", *cxxflags, f"-I{INCLUDE_DIR}", f"-I{PKG_DIR}", "-c", "runtime.cpp", "-o", "runtime.o"]
    name = "runtime" if harness else "runtime-alone"
    return _compiled_once("the simulator's runtime", name, command, {"runtime.cpp": unity}) / "runtime.o"


#: The first line of every kernel's translation unit: kernel_operator.h, precompiled once per
#: library version and flags (about 2 s of parsing that every build would otherwise repeat). GCC
#: uses a precompiled header only when nothing before it defines a macro the header reads, so
#: every macro the runner writes comes after it, and the headers read them only where they expand
#: (GET_TILING_DATA) or through the hooks of harness.h.
PCH_HEADER = "asc_sim_kernel_operator.h"
PCH_TEXT = '#include "kernel_operator.h"\n'
#: The kernel's own copy of PCH_HEADER, read when GCC finds no precompiled one (a turned-down one
#: says so through -Winvalid-pch): its note in the compiler's output marks a build that parsed the headers.
PARSED_NOTE = "asc_sim: kernel_operator.h parsed, not precompiled"
PCH_FALLBACK_TEXT = f'#pragma message("{PARSED_NOTE}")\n' + PCH_TEXT


def _precompiled_header(cxxflags: tuple[str, ...]) -> Path:
    """The directory holding PCH_HEADER and its precompiled ``.gch``; put it first on the include path."""
    command = ["g++", *cxxflags, f"-I{INCLUDE_DIR}", "-x", "c++-header", PCH_HEADER, "-o", PCH_HEADER + ".gch"]
    return _compiled_once("the simulator's precompiled header", "pch", command, {PCH_HEADER: PCH_TEXT})


#: g++ runs with these limits (one build peaks near 200 MB and takes seconds): a source that makes
#: the compiler read a device or expand without end stops here, not at the machine's limits
BUILD_TIMEOUT_S = 600
BUILD_MEMORY_BYTES = 4 << 30
BUILD_FILE_BYTES = 1 << 30


def run_compiler(cmd: list[str], cwd: Path, what: str) -> subprocess.CompletedProcess:
    """Run the compiler under the build limits; past them, a :class:`SimBuildError` that says
    which limit ``what`` (the kernel, the harness) met."""
    compiler = shutil.which(cmd[0])
    if compiler is None:
        raise SimBuildError(f"cannot build {what}: {cmd[0]} is not installed",
                            hint="install g++ (Debian/Ubuntu: apt-get install g++)")
    proc = popen_limited([compiler, *cmd[1:]], cwd=cwd, memory_bytes=BUILD_MEMORY_BYTES, file_bytes=BUILD_FILE_BYTES,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=BUILD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        kill_session(proc)
        raise SimBuildError(f"building {what} took longer than {BUILD_TIMEOUT_S} s; the compiler was stopped",
                            hint="a kernel builds in seconds: look for templates or macros that expand without "
                                 "end") from None
    except BaseException:
        kill_session(proc)
        raise
    # how g++ says it ran out: cc1plus's allocator ("virtual memory exhausted"), the driver, or a kill
    if proc.returncode != 0 and any(m in err for m in ("out of memory", "std::bad_alloc", "virtual memory exhausted")) \
            or proc.returncode == -signal.SIGKILL:
        raise SimBuildError(f"building {what} needed more than the compiler's {BUILD_MEMORY_BYTES >> 30} GiB of "
                            f"memory; it was stopped:\n" + _trim_compiler_output(err),
                            hint="a kernel builds in about 200 MB: look for huge constant tables or an include "
                                 "that reads a large file")
    if proc.returncode == -signal.SIGXFSZ or "File too large" in err:
        raise SimBuildError(f"building {what} wrote a file larger than {BUILD_FILE_BYTES >> 30} GiB; it was stopped",
                            hint="look for huge constant tables in the kernel")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def generated_launch_headers(files: dict[str, str]) -> dict[str, str]:
    """The ``aclrtlaunch_<kernel>.h`` headers the sources include and do not hold: the CANN build generates one per
    kernel (declaring ACLRT_LAUNCH_KERNEL's function); here each is acl/acl.h, which defines the macro."""
    wanted = {inc for text in files.values() for inc in re.findall(r'#\s*include\s*[<"](aclrtlaunch_\w+\.h)[>"]', text)}
    return {inc: '#pragma once\n#include "acl/acl.h"\n' for inc in sorted(wanted) if inc not in files}


def has_host_main(source: str) -> bool:
    return bool(_HOST_MAIN_RE.search(mask_code(source)))


def build_kernel(source: str, kernel_name: str, *, tiling_header: str | None = None,
                 tiling_struct: str | None = None, chip: str = DEFAULT_CHIP, lenient: bool = False,
                 extra_sources: dict[str, str] | None = None, defines: dict[str, Any] | None = None,
                 cxxflags: tuple[str, ...] = DEFAULT_CXXFLAGS) -> KernelArtifact:
    """Compile ``source`` (an AscendC kernel) into a cached simulator executable.

    ``defines`` are macros the CANN build would pass on the command line, such as the
    ``DTYPE_X``/``ORIG_DTYPE_X`` type macros of an msopgen project (``{"DTYPE_X": "half"}``);
    they are defined after kernel_operator.h and before everything else in the translation unit."""
    load_chip(chip)  # validates the name
    params = parse_signature(source, kernel_name)
    if tiling_header is not None and tiling_struct is None:
        tiling_struct = registered_tiling_struct(tiling_header)
        if tiling_struct is None:
            raise UserError("the tiling header defines no tiling struct",
                            hint="use BEGIN_TILING_DATA_DEF(Name) ... END_TILING_DATA_DEF or pass tiling_struct")
    sandboxed, _ = sandbox_support()
    link = SECCOMP_LIBS if sandboxed else ()
    cxxflags = tuple(cxxflags) + (SECCOMP_FLAGS if sandboxed else ())
    define_lines = []
    for name, value in (defines or {}).items():
        if not re.fullmatch(r"[A-Za-z_]\w*", str(name)) or "\n" in str(value):
            raise UserError(f"defines: {name!r} = {value!r} is not a macro name and a one-line value")
        define_lines.append(f"#define {name} {value}")
    key = content_key(BUILD_FORMAT, source, kernel_name, tiling_header or "", tiling_struct or "",
                      "\n".join(define_lines), json.dumps(sorted((extra_sources or {}).items())),
                      " ".join(cxxflags + link))
    out_dir = cache_dir() / key
    meta_path = out_dir / "meta.json"
    exe = out_dir / "kernel.bin"
    if meta_path.exists() and exe.exists():
        meta = json.loads(meta_path.read_text())
        return KernelArtifact(kernel_name, exe, key, params, chip, lenient, tiling_struct, meta["warnings"],
                              build_seconds=meta.get("build_seconds", 0.0), cached=True, sandboxed=sandboxed)

    sources = {"kernel.cpp": source, **(extra_sources or {})}
    if tiling_header is not None:
        sources["asc_sim_tiling_header.h"] = tiling_header
    escape = first_escape(sources)
    if escape:
        raise SimBuildError(escape, hint=INCLUDE_HINT)
    tmp = Path(tempfile.mkdtemp(prefix=f"{key}.", dir=cache_dir()))
    try:
        # foreign direct-launch sources: the host side is compiled (never run); see docs/simulator.md
        (tmp / "kernel.cpp").write_text(rewrite_host_launches(source))
        host_main = has_host_main(source)
        for inc, text in generated_launch_headers({"kernel.cpp": source, **(extra_sources or {})}).items():
            (tmp / inc).write_text(text)
        for name, text in (extra_sources or {}).items():
            target = tmp / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        tu = [f'#include <{PCH_HEADER}>', *define_lines, f"#define ASC_SIM_NUM_ARGS {len(params)}"]
        unterminated = [f"{name}:{line}: warning: ASSERT(...) is not followed by ';': it builds only as CANN's device "
                        f"build compiles ASSERT, to nothing, so this kernel's ASSERT conditions are not checked"
                        for name, text in sources.items() for line in unterminated_asserts(text)]
        if unterminated:
            tu += ["#undef ASSERT", "#define ASSERT(...)"]
        # the project's headers too: a SyncAll or a kernel type written in an included .h counts
        tu += _launch_defines(strip_comments("\n".join((source, *(extra_sources or {}).values()))))
        if tiling_header is not None:
            (tmp / "asc_sim_tiling_header.h").write_text(tiling_header)
            if re.search(r"\bgert::", strip_comments(tiling_header)):
                # a tiling header with host helpers (a TilingParseContext in a template): the gert contexts
                # are declared, as the header's own host build has them; the kernel never calls them
                tu.append('#include "asc_sim/host/context.h"')
            tu += ["#define ASC_SIM_HAS_TILING 1", "#define ASC_SIM_DEFAULT_TILING asc_sim_tiling_ns::Default",
                   '#include "asc_sim_tiling_header.h"',
                   f"namespace asc_sim_tiling_ns {{ using namespace optiling; using Default = {tiling_struct}; }}"]
            # CANN generates the kernel's tiling structs at global scope; a header that defines them in optiling
            # would leave a kernel naming one (GET_TILING_DATA_WITH_STRUCT(XTilingData, ...)) without it
            # (unless the kernel defines its own copy, as a direct-call kernel does)
            own = strip_comments(source + "".join((extra_sources or {}).values()))
            tu += [f"using optiling::{name};" for name in optiling_structs(tiling_header)
                   if not re.search(rf"\bstruct\s+{name}\s*\{{", own)]
        else:
            tu.append("#define ASC_SIM_DEFAULT_TILING asc_sim::NoDefaultTiling")
        if host_main:  # the source's host main() becomes an ordinary function that nothing calls
            tu += ["#define main asc_sim_foreign_host_main", '#include "kernel.cpp"', "#undef main"]
        else:
            tu.append('#include "kernel.cpp"')
        tu_text = "\n".join(tu) + "\n"
        tu_text += _launcher(kernel_name, params)
        tu_text += f'#include "{HARNESS}"\n'
        (tmp / "main.cpp").write_text(tu_text)
        (tmp / PCH_HEADER).write_text(PCH_FALLBACK_TEXT)   # when the precompiled one is not found
        with ThreadPoolExecutor(2) as pool:   # side by side when neither is in the cache yet
            runtime_job, pch_job = pool.submit(_runtime_object, cxxflags), pool.submit(_precompiled_header, cxxflags)
            runtime, pch = runtime_job.result(), pch_job.result()
        # compiled to assembly first: inline assembly is refused before anything is assembled (includes.py)
        cmd = ["g++", *cxxflags, "-Winvalid-pch", f"-I{INCLUDE_DIR}", f"-I{tmp}", "-S", "main.cpp", "-o", "main.s"]
        t0 = time.perf_counter()
        proc = run_compiler(cmd[:1] + [f"-I{pch}"] + cmd[1:], tmp, f"kernel {kernel_name}")
        if proc.returncode != 0 and "PCH allocation failure" in proc.stderr:
            # GCC maps the precompiled header at a fixed address: when it cannot, parse the headers
            proc = run_compiler(cmd, tmp, f"kernel {kernel_name}")
        if proc.returncode != 0:
            raise SimBuildError(f"kernel {kernel_name} does not compile against the AscendC simulator headers:\n"
                                + _trim_compiler_output(proc.stderr))
        problem = inline_asm_problem((tmp / "main.s").read_text(errors="replace"), f"kernel {kernel_name}", sources)
        if problem:
            raise SimBuildError(problem, hint=ASM_HINT)
        # the runtime first: its set-up constructor runs before every start-up function of the kernel's (startup.py)
        linked = run_compiler(["g++", *cxxflags, str(runtime), "main.s", "-o", "kernel.bin", *link], tmp,
                              f"kernel {kernel_name}")
        elapsed = time.perf_counter() - t0
        if linked.returncode != 0:
            raise SimBuildError(f"kernel {kernel_name} does not link against the AscendC simulator's runtime:\n"
                                + _trim_compiler_output(linked.stderr))
        (tmp / "main.s").unlink()
        # a precompiled header GCC turned down costs time, not correctness: kept out of the kernel's
        # warnings, recorded for the test that pins its use
        precompiled = "-Winvalid-pch" not in proc.stderr and PARSED_NOTE not in proc.stderr
        warnings = unterminated + [w for w in proc.stderr.splitlines() if "warning:" in w and "-Winvalid-pch" not in w
                                   and PARSED_NOTE not in w]
        problem = startup_problem(tmp / "kernel.bin", KERNEL_SETUP, f"kernel {kernel_name}")
        if problem:
            raise SimBuildError(problem, hint=STARTUP_HINT)
        (tmp / "build.log").write_text(proc.stderr)
        (tmp / "meta.json").write_text(json.dumps({"warnings": warnings, "build_seconds": elapsed,
                                                   "kernel_name": kernel_name, "precompiled": precompiled}))
        try:
            tmp.rename(out_dir)
        except OSError:  # another process built it first
            shutil.rmtree(tmp, ignore_errors=True)
        return KernelArtifact(kernel_name, exe, key, params, chip, lenient, tiling_struct, warnings,
                              build_seconds=elapsed, sandboxed=sandboxed)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def optiling_structs(header: str) -> list[str]:
    """The BEGIN_TILING_DATA_DEF structs ``header`` defines directly inside ``namespace optiling``."""
    code = strip_comments(header)
    names, stack = [], []
    for m in re.finditer(r"\bnamespace\s+(\w+)\s*\{|\bBEGIN_TILING_DATA_DEF\s*\(\s*(\w+)\s*\)|[{}]", code):
        if m.group(1):
            stack.append(m.group(1))
        elif m.group(2):
            if stack == ["optiling"]:
                names.append(m.group(2))
        elif m.group(0) == "{":
            stack.append("")
        elif stack:
            stack.pop()
    return names


def _launch_defines(code: str) -> list[str]:
    """How the harness launches the kernel (docs/simulator.md, "Mixed launches and cross-core
    flags"): one thread per core when cores wait for each other (SyncAll, cross-core flags), and a
    mixed launch (each block one AIC and `ratio` AIVs) when a MIX_AIC_1_n kernel splits its work by
    core kind or hands work between cores with flags. A MIX kernel that reaches the cube only through
    the high-level Matmul API runs on its vector cores, the matmul inside the calling one: all `ratio`
    AIVs of each block when it counts them (GetTaskRation), else one per block."""
    flags = re.search(r"\bCrossCore(Set|Wait)Flag\b", code) is not None
    by_kind = re.search(r"\bASCEND_IS_(NOT_)?AI[CV]\b|\bGetSubBlockIdx\b", code) is not None
    mix = re.search(r"\bKERNEL_TYPE_MIX_AIC_1_([12])\b|__mix__\s*\(\s*1\s*,\s*([12])\s*\)", code)
    scheduler = mix is not None or re.search(r"\bKERNEL_TYPE_MIX_(AIV|AIC)_1_0\b|__mix__", code) is not None
    out = []
    ratio = int(mix.group(1) or mix.group(2)) if mix and (flags or by_kind) else 0
    if ratio:
        out.append(f"#define ASC_SIM_MIX_RATIO {ratio}")
    # a Matmul-API kernel that counts its AIVs (GetBlockIdx() / GetTaskRation()) runs on all of them
    split = mix is not None and not ratio and re.search(r"\bGetTaskRati(on|o)\b|\bGetSubBlockNum\b", code)
    if split:
        out.append(f"#define ASC_SIM_MATMUL_AIVS {int(mix.group(1) or mix.group(2))}")
    if flags or ratio:
        out.append("#define ASC_SIM_CROSS_CLOCKS 1")   # accesses ordered by flags, not by SyncAll phases
    if flags and not scheduler:
        out.append("#define ASC_SIM_NO_CROSS_SCHEDULER 1")   # an AIV- or AIC-only kernel type: flags never fire
    if flags or ratio or split or re.search(r"\bSyncAll\b", code):
        out.append("#define ASC_SIM_THREADS 1")   # one thread per core: barriers and flags are real waits
    return out


def _trim_compiler_output(text: str, limit: int = 60) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    errs = [ln for ln in lines if "error" in ln]
    keep = errs[:limit] if errs else lines[:limit]
    return "\n".join(keep)

