"""Find an AscendC kernel's entry point in C++ source and classify its parameters."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import UserError

_FLOAT_TYPES = ("float", "double", "half", "bfloat16")
WORKSPACE_NAMES = ("workspace", "usrworkspace", "userworkspace", "ws")
TILING_NAMES = ("tiling", "tilingdata", "tiling_data", "tilinggm")


@dataclass(frozen=True)
class Param:
    name: str
    ctype: str
    kind: str  # "gm" | "scalar" | "workspace" | "tiling"

    @property
    def is_float(self) -> bool:
        return any(t in self.ctype for t in _FLOAT_TYPES) and "*" not in self.ctype

    @property
    def elem_type(self) -> str | None:
        """Element type of a typed GM pointer (``__gm__ float*`` -> ``float``), else None."""
        if self.kind != "gm" or "GM_ADDR" in self.ctype:
            return None
        t = self.ctype.replace("__gm__", "").replace("*", "").replace("const", "").strip()
        return t or None


def strip_comments(src: str) -> str:
    out = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), src, flags=re.S)
    return re.sub(r"//[^\n]*", "", out)


def mask_code(src: str) -> str:
    """``src`` with comments and string/char literals replaced by spaces (same length, same
    newlines), so a scan of the code never matches inside them."""
    out = list(src)
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
        else:
            i += 1
            continue
        for k in range(i, j):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def balanced_end(masked: str, i: int, open_: str, close: str) -> int:
    """Index just past the bracket that closes the one at ``masked[i]``, or -1."""
    depth = 0
    for j in range(i, len(masked)):
        if masked[j] == open_:
            depth += 1
        elif masked[j] == close:
            depth -= 1
            if depth == 0:
                return j + 1
    return -1


def _split_params(text: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def parse_signature(source: str, kernel_name: str) -> list[Param]:
    """Parameters of the ``__global__ __aicore__`` function ``kernel_name`` (template args allowed)."""
    base = kernel_name.split("<", 1)[0].strip()
    src = strip_comments(source)
    for m in re.finditer(r"\b" + re.escape(base) + r"\s*\(", src):
        head = src[max(0, m.start() - 400): m.start()]
        # the declaration must be a __global__ function returning void
        stmt = re.split(r"[;{}]", head)[-1]
        if "__global__" not in stmt or not re.search(r"\bvoid\s*$", stmt):
            continue
        depth, i = 1, m.end()
        while i < len(src) and depth:
            depth += {"(": 1, ")": -1}.get(src[i], 0)
            i += 1
        params = []
        for raw in _split_params(src[m.end(): i - 1]):
            raw = raw.split("=", 1)[0].strip()
            if raw in ("", "void"):
                continue
            mm = re.match(r"(.*?)([A-Za-z_]\w*)\s*$", raw, flags=re.S)
            if not mm:
                raise UserError(f"cannot parse kernel parameter {raw!r} of {base}")
            ctype, name = " ".join(mm.group(1).split()), mm.group(2)
            if "*" in ctype or "GM_ADDR" in ctype:
                low = name.lower()
                kind = "workspace" if low in WORKSPACE_NAMES else "tiling" if low in TILING_NAMES else "gm"
            else:
                kind = "scalar"
            params.append(Param(name, ctype, kind))
        return params
    raise UserError(
        f"no __global__ kernel named {base!r} in the source",
        hint="the entry point must look like: extern \"C\" __global__ __aicore__ void "
             f"{base}(GM_ADDR x, ...)",
    )


def registered_tiling_struct(header: str) -> str | None:
    """The class named in ``REGISTER_TILING_DATA_CLASS(Op, Class)`` (first one), or the first
    ``BEGIN_TILING_DATA_DEF(Class)`` when nothing is registered."""
    text = strip_comments(header)
    m = re.search(r"REGISTER_TILING_DATA_CLASS\s*\(\s*\w+\s*,\s*(\w+)\s*\)", text)
    if m:
        return m.group(1)
    names = re.findall(r"BEGIN_TILING_DATA_DEF\s*\(\s*(\w+)\s*\)", text)
    return names[-1] if names else None
