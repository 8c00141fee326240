"""Builds read only the kernel's own files and the simulator's headers, and the compiler runs
under time and memory limits (sim/includes.py, build.run_compiler): ``#include "/dev/zero"``
used to make g++ ask for 4 GiB, and a build had no limit at all."""
from __future__ import annotations

import uuid

import pytest

from ascendcraft.sim import build as build_mod
from ascendcraft.sim.build import SimBuildError, build_kernel

from sim_helpers import kernel_source


def _fresh(source: str) -> str:
    """The source with a comment no cached build has (so g++ really runs)."""
    return f"// {uuid.uuid4().hex}\n{source}"


@pytest.mark.parametrize("line,words", [
    ('#include "/dev/zero"', 'kernel.cpp:1: #include "/dev/zero" is an absolute path'),
    ('#include "../../../../etc/passwd"', "leaves the kernel's folder"),
    ("#include <../../etc/passwd>", "leaves the include path"),
    ('#define SECRET "/etc/passwd"\n#include SECRET', "kernel.cpp:2: #include SECRET names its header through a macro"),
    ('asm(".incbin \\"/etc/passwd\\"");', "the assembler directive .incbin"),
    ('#if __has_include("/etc/shadow")\n#endif', "__has_include"),
])
def test_a_source_that_reads_a_machine_file_is_refused_before_g_plus_plus(monkeypatch, line, words):
    ran = []
    monkeypatch.setattr(build_mod, "run_compiler", lambda *a: ran.append(a))
    with pytest.raises(SimBuildError) as err:
        build_kernel(line + "\n" + kernel_source("vec_ops.cpp"), "vec_ops")
    assert words in str(err.value)
    assert "extra_sources" in err.value.hint
    assert not ran, "g++ ran on a source that reads outside its folder"


def test_includes_of_the_kernels_own_files_and_the_headers_still_build():
    art = build_kernel('#include "helpers/scale.h"\n' + kernel_source("vec_ops.cpp"), "vec_ops",
                       extra_sources={"helpers/scale.h": '#include "../common.h"\n', "common.h": "#pragma once\n"})
    assert art.exe.exists()


def test_a_build_past_its_time_limit_is_stopped(monkeypatch):
    monkeypatch.setattr(build_mod, "BUILD_TIMEOUT_S", 0.3)
    with pytest.raises(SimBuildError, match=r"took longer than 0.3 s; the compiler was stopped"):
        build_kernel(_fresh(kernel_source("vec_ops.cpp")), "vec_ops")


def test_a_build_past_its_memory_limit_is_stopped(monkeypatch):
    monkeypatch.setattr(build_mod, "BUILD_MEMORY_BYTES", 96 << 20)
    with pytest.raises(SimBuildError, match=r"needed more than the compiler's 0 GiB of memory"):
        build_kernel(_fresh(kernel_source("vec_ops.cpp")), "vec_ops")
