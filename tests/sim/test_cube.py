"""The low-level cube path (Nd2Nz DataCopy, LoadData, Mmad, Fixpipe) against NumPy."""
from __future__ import annotations

import numpy as np

from ascendcraft.sim import build_kernel, run_kernel

from sim_helpers import assert_close, kernel_source, poisoned

SRC = kernel_source("mmad_lowlevel.cpp")


def test_mmad_allocator_style_fp16_out(rng):
    art = build_kernel(SRC, "mmad_alloc<256, 64, 256, 128, 128, 64, 256>")
    assert art.warnings == []
    a = rng.standard_normal((256, 64)).astype(np.float16)
    b = rng.standard_normal((64, 256)).astype(np.float16)
    res = run_kernel(art, [a, b, poisoned((256, 256), np.float16)], block_dim=2)
    assert res.ok, res.report()
    ref = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    assert_close(res.outputs[2], ref, np.float16)
    assert res.cost.pipe_busy_us["M"] > 0 and res.cost.pipe_busy_us["MTE1"] > 0


def test_mmad_queue_style_accumulates_over_k(rng):
    art = build_kernel(SRC, "mmad_queue")
    m, k, n = 64, 96, 80
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    res = run_kernel(art, [a, b, poisoned((m, n), np.float32), m, k, n], block_dim=1)
    assert res.ok, res.report()
    assert_close(res.outputs[2], a.astype(np.float32) @ b.astype(np.float32))


def test_mmad_reading_unloaded_l0b_is_caught(rng):
    art = build_kernel("#define BUG_SKIP_B_LOAD\n#line 1\n" + SRC, "mmad_queue")
    m, k, n = 32, 64, 32
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    res = run_kernel(art, [a, b, poisoned((m, n), np.float32), m, k, n], block_dim=1)
    assert [d.rule for d in res.errors] == ["uninit-read"]
    d = res.errors[0]
    assert d.api == "Mmad" and "filter" in d.message
    assert "AscendC::Mmad(cl, a2d, b2d," in SRC.splitlines()[d.line - 1]
