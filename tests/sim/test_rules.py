"""Every hardware rule the simulator checks, each caught in a kernel with one planted bug; plus
lenient mode, an unsupported API on another chip, and a crashing and a hanging kernel."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft.sim import build_kernel, run_kernel

from sim_helpers import assert_close, kernel_source, poisoned

PLANTED = kernel_source("planted_bugs.cpp")
TILE, TILES, BLOCKS = 256, 2, 2

# macro -> (rule, text on the kernel line the diagnostic must point at, words the message must contain)
BUGS = {
    "SECOND_TPIPE": ("second-tpipe", "AscendC::TPipe pipe2;", ["second TPipe"]),
    # a queue's second buffer past the end of UB: an error where it is first used, naming its InitBuffer
    "UB_CAPACITY": ("ub-capacity", "AscendC::DataCopy(yl, yGm[t * TILE], TILE);",
                    ["InitBuffer at line 25", "past the end of UB", "196608", "910B2"]),
    "L1_CAPACITY": ("l1-capacity", "pipe.InitBuffer(l1Queue", ["InitBuffer", "A1", "524288"]),
    "BUFFERS_PER_POSITION": ("buffers-per-position", "pipe.InitBuffer(extra3", ["VECIN", "10 buffers", "at most 8"]),
    "MAX_BUFFERS": ("max-buffers", "pipe.InitBuffer(scratch[i], 32)", ["more than 64 buffers"]),
    "ALLOC_NO_BUFFER": ("alloc-no-buffer", "x3 = inX.AllocTensor", ["AllocTensor", "2 buffer(s)", "FreeTensor"]),
    "DATACOPY_ALIGN": ("datacopy-align", "TILE - 2);", ["count=254", "1016 bytes", "992 bytes", "DataCopyPad"]),
    "GM_BOUNDS": ("gm-bounds", "past the end of y", ["DataCopy reads 1024 bytes", "buffer 'y'", "past the end"]),
    "UNINIT_READ": ("uninit-read", "// the correct Add", ["src1", "nothing wrote"]),
    "ENQUE_FULL": ("enque-full", "one.EnQue(o2)", ["depth=1", "without a DeQue"]),
    "DEQUE_EMPTY": ("deque-empty", "LocalTensor<float> xd = inX.DeQue", ["empty TQue<VECIN>"]),
    "UB_ALIGN": ("ub-align", "xd[3]", ["src0", "not 32-byte aligned", "0xc"]),
    "USE_AFTER_FREE": ("use-after-free", "// reads a freed tensor", ["src0", "FreeTensor", "handed out again"]),
    "NOT_FREED": ("not-freed", "zl = outZ.AllocTensor", ["VECOUT", "never released with FreeTensor"]),
    "TENSOR_OVERFLOW": ("tensor-overflow", "// count larger than the tensors", ["512 elements", "holds only 256"]),
    "COMPARE_256": ("compare-256", "AscendC::Compare(cmpMask", ["992 bytes", "256"]),
    "BF16_ARITH": ("dtype", "AscendC::Muls(xb", ["bfloat16_t", "Cast to float"]),
    "SYNC_UNPAIRED": ("sync-unpaired", "WaitFlag<AscendC::HardEvent::V_MTE3>(0)", ["no matching SetFlag"]),
}


def _line_of(text: str) -> int:
    hits = [i for i, ln in enumerate(PLANTED.splitlines(), 1) if text in ln]
    assert len(hits) == 1, text
    return hits[0]


def _run(bug: str | None, **kw):
    src = (f"#define BUG_{bug}\n#line 1\n" if bug else "") + PLANTED
    art = build_kernel(src, "planted")
    assert art.warnings == [], art.warnings
    n = BLOCKS * TILES * TILE
    rng = np.random.default_rng(7)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    res = run_kernel(art, [x, y, poisoned(n, np.float32), TILES], block_dim=BLOCKS, outputs=[2], **kw)
    return res, x, y


def test_clean_kernel_passes():
    res, x, y = _run(None)
    assert res.ok, res.report()
    assert res.diagnostics == []
    assert_close(res.outputs[2], x + y)


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_planted_bug_is_caught(bug):
    rule, marker, words = BUGS[bug]
    res, _, _ = _run(bug)
    assert not res.ok
    assert res.crash is None
    errors = res.errors
    assert len(errors) == 1, res.report()
    d = errors[0]
    assert d.rule == rule, res.report()
    assert d.line == _line_of(marker), res.report()
    assert d.file == "kernel.cpp"
    for w in words:
        assert w in d.message, (w, d.message)


def test_a_freed_tensor_read_before_its_buffer_is_handed_out_again_is_a_warning():
    """The buffer keeps its bytes until the queue reuses it: the read works on the NPU."""
    src = "#define READ_AFTER_FREE\n#line 1\n" + PLANTED
    n = BLOCKS * TILES * TILE
    x, y = np.arange(n, dtype=np.float32), np.ones(n, np.float32)
    res = run_kernel(build_kernel(src, "planted"), [x, y, poisoned(n, np.float32), TILES], block_dim=BLOCKS,
                     outputs=[2])
    assert res.ok, res.report()
    assert_close(res.outputs[2], x + y)
    (w,) = [d for d in res.warnings if d.rule == "use-after-free"]
    assert w.line == _line_of("// a freed tensor the queue has not handed out again")
    assert "until the queue hands the buffer out again" in w.message


def test_datacopy_round_down_in_lenient_mode():
    """Lenient: a warning, the hardware's round-down, and then the read of the 8 floats that
    the shortened copy left unwritten is caught."""
    res, _, _ = _run("DATACOPY_ALIGN", lenient=True)
    warn = [d for d in res.warnings if d.rule == "datacopy-align"]
    assert len(warn) == 1 and "lenient" in warn[0].message
    assert [d.rule for d in res.errors] == ["uninit-read"]
    assert "element 248" in res.errors[0].message  # 992 bytes = 248 floats were copied


def test_datacopypad_unsupported_on_310p():
    art = build_kernel(kernel_source("abs_scale_pad.cpp"), "abs_scale_pad<float>")
    x = np.ones(100, np.float32)
    res = run_kernel(art, [x, poisoned(100, np.float32), 100, 64, 1.0], block_dim=1, chip="310P3")
    assert [d.rule for d in res.errors] == ["unsupported-api"]
    assert "310P3" in res.errors[0].message


def test_crash_is_contained():
    art = build_kernel(kernel_source("crash_hang.cpp"), "crash_kernel")
    res = run_kernel(art, [np.zeros(1000, np.float32), 1000], block_dim=1)
    assert not res.ok
    assert res.crash is not None and "SIGSEGV" in res.crash


def test_hang_is_contained():
    art = build_kernel(kernel_source("crash_hang.cpp"), "hang_kernel")
    res = run_kernel(art, [np.zeros(64, np.float32), 64], block_dim=1, timeout_s=1)
    assert not res.ok
    assert res.crash is not None and "time limit" in res.crash
