"""What a kernel's sources may read at build time: their own files and the headers on the include
path, never a path of the machine. ``#include "/etc/passwd"`` would compile a file into the kernel
(which could then print it), and ``#include "/dev/zero"`` made the compiler read without end; the
assembler's ``.incbin``/``.include`` read files the same way. So before g++ runs, every include
names a header by a relative path that stays inside the build folder, and no source names the
assembler's file directives. (The compiler also runs under time and memory limits: sim/launch.py.)
"""
from __future__ import annotations

import posixpath
import re

from .signature import strip_comments

#: what to do about any problem :func:`first_escape` finds
HINT = "pass the header's text with the kernel (extra_sources) and include it by its name"

_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(include|include_next|import)\b[ \t]*(.*)$", re.M)
_HAS_INCLUDE = re.compile(r"__has_include(?:_next)?\s*\(\s*([<\"])([^>\"]*)[>\"]")
_ASM_FILE = re.compile(r"\.(incbin|include)\b")


def first_escape(files: dict[str, str]) -> str | None:
    """The first include (file and line) that could read outside the build folder, said as an
    error, or None (``files``: name in the build folder -> text)."""
    for name, text in files.items():
        code = strip_comments(text.replace("\\\n", ""))
        for lineno, line in enumerate(code.splitlines(), 1):
            m = _DIRECTIVE.match(line)
            problem = _target(name, lineno, m.group(1), m.group(2).strip()) if m else None
            for h in _HAS_INCLUDE.finditer(line):
                problem = problem or _path(name, lineno, "__has_include", h.group(1), h.group(2))
            a = _ASM_FILE.search(line)
            if a and not problem:
                problem = (f"{name}:{lineno}: the assembler directive .{a.group(1)} reads a file of the machine into "
                           f"the kernel; kernels may not use it")
            if problem:
                return problem
    return None


def _target(name: str, lineno: int, directive: str, target: str) -> str | None:
    if not target or target[0] not in "<\"":
        return (f"{name}:{lineno}: #{directive} {target} names its header through a macro; the simulator builds "
                f"only includes written as \"file.h\" or <file.h>")
    end = target.find(">" if target[0] == "<" else "\"", 1)
    if end < 0:
        return None                             # malformed: g++ reports it with its own message
    return _path(name, lineno, f"#{directive}", target[0], target[1:end])


def _path(name: str, lineno: int, what: str, quote: str, path: str) -> str | None:
    shown = f"{quote}{path}{'>' if quote == '<' else quote}"
    if path.startswith("/") or path.startswith("~"):
        why = "is an absolute path"
    elif quote == "<" and ".." in path.split("/"):
        why = "leaves the include path (..)"
    elif quote == "\"" and posixpath.normpath(posixpath.join(posixpath.dirname(name), path)).startswith(".."):
        why = "leaves the kernel's folder (..)"
    else:
        return None
    return f"{name}:{lineno}: {what} {shown} {why}: a kernel may include only its own files and the headers on " \
           f"the include path"


# ----------------------------------------------------------------------------- inline assembly
#: what to do about inline assembly
ASM_HINT = "write the kernel in C++ against the AscendC API; the simulator builds no asm statements"
_ASM_STATEMENT = re.compile(r"\b(?:__asm__|__asm|asm)\b(?:\s+(?:volatile|__volatile__|goto|inline))*\s*\(")


def inline_asm_problem(assembly: str, what: str, sources: dict[str, str]) -> str | None:
    """Why a program whose compiled ``assembly`` (g++ -S) holds inline assembly is refused, or None. The
    assembler's own directives read files (``.incbin``, ``.include``) and its macros can spell them, even where
    no source names them (a macro can paste ``.inc`` and ``bin``), so the check is on what g++ emitted: the
    ``#APP`` blocks it wraps around every asm statement. The simulator's headers have none. The first asm
    statement of ``sources`` (name -> text) is named when one is found."""
    if "#APP" not in assembly:
        return None
    where = ""
    for name, text in sources.items():
        code = strip_comments(text)
        m = _ASM_STATEMENT.search(code)
        if m:
            where = f" ({name}:{code.count(chr(10), 0, m.start()) + 1})"
            break
    return (f"{what} contains inline assembly{where}: the assembler can read files of the machine into the "
            f"program (.incbin), so kernels and operator code may not use asm statements")
