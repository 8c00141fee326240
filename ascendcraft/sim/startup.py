"""No code of a kernel (or of an operator's host code) runs before the simulator's sandbox.

A program's start-up functions run before ``main``: static initializers, ``__attribute__((constructor))``
functions, anything placed in ``.init_array`` or ``.preinit_array``. The harnesses install the sandbox in a
start-up function of their own, a constructor of priority 101 in the first object linked
(``asc_sim_setup_before_kernel_code`` in harness_main.cpp, ``asc_sim_host_setup_before_op_code`` in
host/host_setup.h), so the kernel's static initializers run inside the sandbox. Code could still come first:
a constructor of a priority below 101 (reserved, which g++ only warns about), or a function pointer placed in
one of those sections by hand. So every linked executable is read back here: its ``.preinit_array`` must be
empty and the first function of its ``.init_array`` (after the C runtime's ``frame_dummy``) must be the
harness's set-up; otherwise the build fails, naming the function that would have run unsandboxed.
"""
from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

#: start-up functions of the C runtime itself, which may come before the set-up
RUNTIME_STARTUP = frozenset({"frame_dummy", "register_tm_clones"})


#: what to do about a function that would run before the sandbox
HINT = ("drop the constructor priority or the section attribute: static initializers of the default priority are "
        "allowed, and run inside the sandbox")


def _sections(data: bytes) -> list[tuple]:
    """ELF64 little-endian section headers in order: (name, type, address, offset, size, link, entry size)."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + k * shentsize) for k in range(shnum)]
    names_off = headers[shstrndx][4]

    def name(off: int) -> str:
        end = data.index(b"\0", names_off + off)
        return data[names_off + off:end].decode()

    return [(name(h[0]), h[1], h[3], h[4], h[5], h[6], h[9]) for h in headers]


def startup_functions(exe: str | Path) -> tuple[list[str], list[str]]:
    """The functions of ``exe``'s ``.preinit_array`` and ``.init_array``, in the order they run (an address
    no function symbol names is given in hex)."""
    data = Path(exe).read_bytes()
    headers = _sections(data)
    sections = {h[0]: h[1:] for h in headers}
    by_address: dict[int, str] = {}
    if ".symtab" in sections:
        _, _, off, size, link, entsize = sections[".symtab"]
        str_off = headers[link][3]
        for k in range(size // (entsize or 24)):
            st_name, st_info, _, _, st_value, _ = struct.unpack_from("<IBBHQQ", data, off + k * (entsize or 24))
            if st_info & 0xF == 2 and st_value:      # STT_FUNC
                end = data.index(b"\0", str_off + st_name)
                by_address.setdefault(st_value, data[str_off + st_name:end].decode(errors="replace"))

    def functions(section: str) -> list[str]:
        if section not in sections:
            return []
        _, _, off, size, _, _ = sections[section]
        pointers = struct.unpack_from(f"<{size // 8}Q", data, off)
        return [by_address.get(p, hex(p)) for p in pointers]

    return functions(".preinit_array"), functions(".init_array")


def startup_problem(exe: str | Path, setup: str, what: str) -> str | None:
    """Why ``exe`` is refused (with :data:`HINT`), or None when ``setup`` is its first start-up function."""
    try:
        preinit, init = startup_functions(exe)
    except (ValueError, struct.error) as err:
        return f"{what}: the linked executable's start-up functions cannot be read ({err}), so it is not run"
    early = [f for f in preinit + (init[:init.index(setup)] if setup in init else init) if f not in RUNTIME_STARTUP]
    if not early:
        return None
    return (f"{what} runs code before the simulator's sandbox is installed: {', '.join(_demangled(early[:4]))} would be "
            f"called at "
            f"start-up ahead of the harness (a constructor with a priority below 101, or a function placed in "
            f".init_array or .preinit_array); such code could read the machine's files")


def _demangled(names: list[str]) -> list[str]:
    if not shutil.which("c++filt"):
        return names
    proc = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, timeout=30)
    out = proc.stdout.splitlines()
    return out if proc.returncode == 0 and len(out) == len(names) else names
