"""GM regions whose elements are not adjacent in GM, lowered and verified on the simulator.

A column ``x[a:b, j]`` (or any region that indexes the tensor's last axis and keeps another)
has its tile elements ``stride`` apart in GM: the emitter copies it one element per 32-byte
block with DataCopyPad and packs the blocks with Gather (Brcb + DataCopyPad on the way back),
through the xwork/xidx work buffers bufferize declares. Before, such regions were copied as if
contiguous and the kernels disagreed with the op on the simulator while every pass passed.
Each kernel here writes every form it tests to its own output, so one mis-copied form fails
the verification of ``lower``; the ops are in tests/lowering/data/strided/.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ascendcraft.dsl import ast as A
from ascendcraft.errors import AscendcraftError
from ascendcraft.lower import lower
from ascendcraft.sim import build_kernel, run_kernel
from ascendcraft.lowering_passes.bufferize import _difference

DATA = Path(__file__).parent / "data" / "strided"


def _lower(kernel: str, op: str):
    """Lower, build and verify on the simulator against the op (raises on any mismatch)."""
    return lower(DATA / kernel, DATA / op, backend="sim", model_time=False, trials=1)


def test_column_of_a_two_dimensional_scratch_read_after_the_phase():
    # the reported kernel: per-core partial sums in part[i, 0] and part[i, 1], summed by column
    # after the phase (before: relative L2 error 8e-2 on the simulator)
    r = _lower("scale_col.dsl", "scale_op.py")
    final = r.run.final.text
    assert "load(part[:, 0]" in final and "buffer xwork" in final and "buffer xidx" in final
    assert r.spec.kernel_source.count("CopyInStrided<float>(") == 2


def test_column_loads_of_an_input_and_strided_column_stores():
    # y: 21 columns of 300 elements (two chunks: 256 and 44) stored as rows;
    # z: rows tiled by 16 (a tail of 5) stored as pieces of columns;
    # w: rows added atomically to the columns w[:, 0] and w[:, 1]
    r = _lower("transpose.dsl", "transpose_op.py")
    src = r.spec.kernel_source
    assert "CopyInStrided<float>(" in src and src.count("CopyOutStrided<float>(") == 3
    assert "SetAtomicAdd<float>()" in src


def test_sub_blocks_with_row_gaps_and_two_dimensional_strided_tiles():
    # y: [4, 128] blocks of a [3, 21, 150] tensor (row stride 150, tails in both axes);
    # z: x[:, :, w], a [3, 21] tile with strides 21 * 150 and 150; u: x[b, h:h + 16, w] columns
    r = _lower("blocks.dsl", "blocks_op.py")
    src = r.spec.kernel_source
    assert src.count("CopyInStrided<float>(") == 2 and src.count("CopyOutStrided<float>(") == 2
    assert "AcZeroFill(" in src     # a tail block's rows are shorter than the pitch


def test_padded_strided_loads_and_one_byte_columns():
    # y: columns with one-element halos (left halo at the top, right halo and tail at the bottom),
    # a tile of h - 1:h + T + 1 (T + 2 elements, not the dim R); s: a bool column, which Gather
    # cannot move (one byte per element: scalar unit), in a phase that assigns the first phase's
    # loop variable h (it was not declared in the emitted C++)
    r = _lower("halo.dsl", "halo_op.py")
    src = r.spec.kernel_source
    assert "CopyInStrided<float>(" in src and "CopyInStrided<uint8_t>(" in src


def test_broadcast_and_copy_through_stores():
    # a scalar broadcast to a row and to a column, a row tile broadcast to every row, loaded
    # tiles (a row, a column) stored as they are with no compute between, and a left halo
    # wider than a 32-byte block
    r = _lower("broadcast.dsl", "broadcast_op.py")
    src = r.spec.kernel_source
    assert "CopyInStrided<float>(" in src and src.count("CopyOutStrided<float>(") == 2


def test_a_broadcast_the_emitter_cannot_copy_is_refused_naming_the_statement():
    with pytest.raises(AscendcraftError) as info:
        _lower("column_broadcast.dsl", "broadcast_op.py")
    text = str(info.value)
    # in the writer's terms: the expression, not the name a pass gave it
    assert "store(y[r, :], full((1,), 1.0, f32))" in text and "_t0" not in text
    assert "broadcast" in text and "--> " in text


def test_slice_extents_of_halos_are_exact():
    h, t = A.Name("h"), A.Name("T")
    plus, minus = (lambda a, b: A.Binary("+", a, b)), (lambda a, b: A.Binary("-", a, b))
    dim = A.Name("N")
    # h - 1 : h + T + 1 -> T + 2 (it fell back to the dim N: the padded tile had N elements)
    assert _difference(minus(h, A.Int(1)), plus(plus(h, t), A.Int(1)), dim) == plus(t, A.Int(2))
    assert _difference(h, plus(h, t), dim) == t
    assert _difference(h, plus(A.Name("g"), t), dim) == dim
    # products distribute: S * i + r - 2 : S * (i + T) + r - 2 -> S * T (it fell back to the dim: a
    # padded load of every S-th row, T rows long, had its buffer sized by the rows inside the tensor)
    s, i, r = A.Name("S"), A.Name("i"), A.Name("r")
    times = (lambda a, b: A.Binary("*", a, b))
    first = minus(plus(times(s, i), r), A.Int(2))
    last = minus(plus(times(s, plus(i, t)), r), A.Int(2))
    assert _difference(first, last, dim) == times(s, t)
    assert _difference(first, minus(plus(times(s, plus(i, t)), A.Name("q")), A.Int(2)), dim) == dim


def test_the_simulator_refuses_more_than_4095_blocks_in_one_datacopypad():
    # DataCopyPad's blockCount is 12 bits on A2 (nBurst [0, 4095], CCE intrinsic "搬运并补pad";
    # ascendc_api.md 2.2): the uint16_t field accepts 4096, the hardware does not
    src = r'''
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void many_blocks(GM_ADDR x, GM_ADDR y, int32_t blocks)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4096 * 32);
    AscendC::GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x);
    yGm.SetGlobalBuffer((__gm__ float*)y);
    AscendC::LocalTensor<float> t = buf.Get<float>();
    AscendC::DataCopyPad(t, xGm, AscendC::DataCopyExtParams{static_cast<uint16_t>(blocks), 4, 0, 0, 0},
                         AscendC::DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
    { auto e = static_cast<event_t>(AscendC::GetTPipePtr()->FetchEventID(AscendC::HardEvent::MTE2_MTE3));
      AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(e); AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(e); }
    AscendC::DataCopyPad(yGm, t, AscendC::DataCopyExtParams{static_cast<uint16_t>(blocks), 4, 0, 0, 0});
}
'''
    art = build_kernel(src, "many_blocks")
    x = np.arange(4096, dtype=np.float32)
    ok = run_kernel(art, [x, np.zeros(4096, np.float32), 4095], block_dim=1)
    assert ok.ok, ok.report()
    assert np.array_equal(ok.outputs[1][:4095], x[:4095])
    bad = run_kernel(art, [x, np.zeros(4096, np.float32), 4096], block_dim=1)
    assert not bad.ok and "param-range" in bad.report() and "blockCount=4096" in bad.report()
