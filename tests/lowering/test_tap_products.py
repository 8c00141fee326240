"""Tap products (docs/dsl.md, "Tap products"): a convolution over a channel-last image as an implicit
GEMM on the cube cores, each tap's tiles read from GM and accumulated in L0C (cube_taps.py,
codegen/taps.py). Against torch on the simulator with tails on every axis, at two shape sets; and
the forms the lowering refuses, with the reason."""
import pytest

from ascendcraft.errors import AscendcraftError, render

from compiled import compile_verified

# y[n, co, l] = sum over kw, ci of wt[kw, co, ci] * x[n, l + kw, ci]: x channel-last
CONV1D_OP = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, wt):
        return torch.nn.functional.conv1d(x.permute(0, 2, 1), wt.permute(1, 2, 0))


N = 2
L = 150
CI = 20
CO = 40
KW = 3


def get_inputs():
    return [torch.randn(N, L, CI), torch.randn(KW, CO, CI)]


def get_init_inputs():
    return []
"""

CONV1D = """
kernel conv1d_taps(x: gm f32[N, L, CI], wt: gm f32[KW, CO, CI]) -> (y: gm f32[N, CO, LO]):
    const TM = 32
    const TN = 64
    for n, i, j in parallel(N, cdiv(CO, TM), cdiv(LO, TN)):
        m = i * TM
        q = j * TN
        a = load(wt[0, m:m + TM, :], space=l1, pad=0.0)
        acc = matmul(a, load(x[n, q:q + TN, :], space=l1, pad=0.0), transpose_b=True)
        for t in range(1, KW):
            a = load(wt[t, m:m + TM, :], space=l1, pad=0.0)
            acc = acc + matmul(a, load(x[n, q + t:q + t + TN, :], space=l1, pad=0.0), transpose_b=True)
        store(y[n, m:m + TM, q:q + TN], acc)
"""

# a 3 x 3 convolution over an image already padded, one output row a tile: tap t reads the image
# row oh + t // 3 from column t % 3 (a [OW, CI] block of the channel-last image)
CONV2D_OP = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, wt):
        w = wt.reshape(3, 3, wt.shape[1], wt.shape[2]).permute(2, 3, 0, 1)
        return torch.nn.functional.conv2d(x.permute(0, 3, 1, 2), w)


N = 2
H = 13
W = 21
CI = 12
CO = 24


def get_inputs():
    return [torch.randn(N, H, W, CI), torch.randn(9, CO, CI)]


def get_init_inputs():
    return []
"""

CONV2D = """
kernel conv2d_taps(x: gm f32[N, H, W, CI], wt: gm f32[T9, CO, CI]) -> (y: gm f32[N, CO, OH, OW]):
    const P = OH * OW
    yv = view(y, (N, CO, P))
    for n, oh in parallel(N, OH):
        q = oh * OW
        a = load(wt[0, :, :], space=l1)
        acc = matmul(a, load(x[n, oh, 0:OW, :], space=l1), transpose_b=True)
        for t in range(1, 9):
            a = load(wt[t, :, :], space=l1)
            acc = acc + matmul(a, load(x[n, oh + t // 3, t % 3:t % 3 + OW, :], space=l1), transpose_b=True)
        store(yv[n, :, q:q + OW], acc)
"""


def test_a_1d_convolution_over_a_channel_last_image_runs_on_the_cube_cores(tmp_path):
    """Rows of C (40 = 32 + 8), its columns (148 = 2 x 64 + 20) and K (20, not a multiple of the cube's
    8) all end in a tail; the last tile's image rows run past the padded source tiles, never read."""
    k = compile_verified(tmp_path, CONV1D, CONV1D_OP, trials=2)
    final = k.lowered.run.levels[-1].text
    assert "taps=(t, 1, KW, 1, wt[t, " in final and "load(" not in final.split("taps=")[0].split("parallel")[-1]
    assert "KERNEL_TYPE_AIC_ONLY" in k.source and "TapCopy<float, true, " in k.source
    assert "AscendC::Fixpipe(y_uGm[" in k.source and "Matmul<" not in k.source
    # the three taps' image blocks are the same rows shifted by one: one window of L1 for all three
    assert "TapWindows(nt_, " in k.source


def test_weights_stay_in_l1_across_a_cores_tiles_and_are_copied_again_for_other_channels(tmp_path):
    """Tiles of 16 columns: 2 x 2 x 9 = 36 C tiles over the 24 cube cores, two each on the first 12,
    so the core of tiles 8 and 9 takes the last columns of the first block of output channels (32
    rows), then the first of the second (a tail of 8 rows): each tap's weight tile is kept in L1
    from one tile to the next and copied again when its address or rows change."""
    k = compile_verified(tmp_path, CONV1D.replace("const TN = 64", "const TN = 16"),
                         CONV1D_OP.replace("L = 150", "L = 146"), trials=2)
    assert "TapCopy<float, true, true>(" in k.source and "tapARes" in k.source


def test_weights_that_do_not_fit_l1_together_go_through_the_queue(tmp_path):
    """17 taps of [128, 64] f32 weight tiles (557,056 bytes) do not fit L1 at once: each tap's tile is
    copied for every C tile, through the A1 queue."""
    op = CONV1D_OP.replace("L = 150", "L = 60").replace("CI = 20", "CI = 64").replace("KW = 3", "KW = 17")
    k = compile_verified(tmp_path, CONV1D.replace("const TM = 32", "const TM = 128").replace("const TN = 64",
                                                                                            "const TN = 32"), op, trials=2)
    assert "TapCopy<float, true, false>(" in k.source and "pipe.InitBuffer(tapA1," in k.source


def test_a_2d_convolution_taps_move_by_rows_and_columns(tmp_path):
    """Nine taps, each a block of the channel-last image shifted by (t // 3, t % 3); C written through
    a view of y, one output row a tile."""
    compile_verified(tmp_path, CONV2D, CONV2D_OP, trials=2)


# the same convolution in tiles of 16 output columns (19 = 16 + 3), each written straight to y: C's
# rows are its channels, a channel plane (OH * OW) apart, and its columns part of one output row
CONV2D_ROWS = """
kernel conv2d_rows(x: gm f32[N, H, W, CI], wt: gm f32[T9, CO, CI]) -> (y: gm f32[N, CO, OH, OW]):
    const TN = 16
    for n, oh, j in parallel(N, OH, cdiv(OW, TN)):
        q = j * TN
        a = load(wt[0, :, :], space=l1)
        acc = matmul(a, load(x[n, oh, q:q + TN, :], space=l1, pad=0.0), transpose_b=True)
        for t in range(1, 9):
            a = load(wt[t, :, :], space=l1)
            acc = acc + matmul(a, load(x[n, oh + t // 3, q + t % 3:q + t % 3 + TN, :], space=l1, pad=0.0),
                               transpose_b=True)
        store(y[n, :, oh, q:q + TN], acc)
"""


def test_a_tap_tile_of_c_takes_its_rows_from_any_axis_but_the_last(tmp_path):
    """C's tile is y[n, :, oh, q:q + TN]: its rows the channels (a plane apart), its columns a tail of
    3 in the last tile of each output row; the taps' column starts q + t % 3 have the constant
    length TN (pad=) though t % 3 is not linear."""
    k = compile_verified(tmp_path, CONV2D_ROWS, CONV2D_OP, trials=2)
    assert "AscendC::Fixpipe(y_uGm[" in k.source


# the same convolution over a channel-first image [N, CI, L]: each tap's B is [CI, TN] as stored
NCL_OP = CONV1D_OP.replace("x.permute(0, 2, 1), wt", "x, wt").replace("torch.randn(N, L, CI)", "torch.randn(N, CI, L)")
NCL = (CONV1D.replace("x: gm f32[N, L, CI]", "x: gm f32[N, CI, L]").replace(", transpose_b=True", "")
       .replace("x[n, q:q + TN, :]", "x[n, :, q:q + TN]").replace("x[n, q + t:q + t + TN, :]", "x[n, :, q + t:q + t + TN]"))
# the taps one row further: the last tile's image rows run past x (zeros in the source's padding)
SHIFTED_OP = CONV1D_OP.replace("return torch.nn.functional.conv1d(x.permute(0, 2, 1), wt.permute(1, 2, 0))",
                               "x = torch.cat([x[:, 1:, :], torch.zeros_like(x[:, :1, :])], 1)\n"
                               "        return torch.nn.functional.conv1d(x.permute(0, 2, 1), wt.permute(1, 2, 0))")
SHIFTED = CONV1D.replace("x[n, q:q + TN, :]", "x[n, q + 1:q + 1 + TN, :]").replace("q + t:q + t + TN", "q + t + 1:q + t + 1 + TN")


# vector phases on the AIVs before and after the taps on the AICs: the weights doubled into a
# scratch, the taps, then relu over y (a barrier and mode-2 flags between the kinds)
MIXED = (NCL.replace("load(wt[", "load(w2[")
         .replace("kernel conv1d_taps(x: gm f32[N, CI, L], wt: gm f32[KW, CO, CI]) -> (y: gm f32[N, CO, LO]):",
                  "kernel conv1d_taps(x: gm f32[N, CI, L], wt: gm f32[KW, CO, CI]) -> (y: gm f32[N, CO, LO]):\n"
                  "    scratch w2: f32[KW, CO, CI]\n"
                  "    for t, co in parallel(KW, CO):\n"
                  "        store(w2[t, co, :], load(wt[t, co, :]) * 2.0)")
         + "    for n, co in parallel(N, CO):\n"
           "        for l in range(0, LO, 64):\n"
           "            store(y[n, co, l:l + 64], relu(load(y[n, co, l:l + 64])))\n")
MIXED_OP = NCL_OP.replace("return torch.nn.functional.conv1d(x, wt.permute(1, 2, 0))",
                          "return torch.relu(torch.nn.functional.conv1d(x, 2.0 * wt.permute(1, 2, 0)))")


def test_vector_phases_before_and_after_the_taps_run_on_the_vector_cores(tmp_path):
    k = compile_verified(tmp_path, MIXED, MIXED_OP, trials=2)
    src = k.source
    assert "KERNEL_TYPE_MIX_AIC_1_2" in src and "if ASCEND_IS_AIC {" in src and "if ASCEND_IS_AIV {" in src
    assert "AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(0);" in src and "AscendC::CrossCoreWaitFlag(0);" in src
    assert "AscendC::CrossCoreSetFlag<2, PIPE_FIX>(1);" in src and "AscendC::CrossCoreWaitFlag(1);" in src


def test_a_channel_first_image_is_read_as_stored(tmp_path):
    """B [CI, TN] as stored (its rows the channels, L apart): copied to L1 16 rows a matrix and
    transposed on the way to L0B."""
    k = compile_verified(tmp_path, NCL, NCL_OP, trials=2)
    assert "TapCopy<float, false, " in k.source


@pytest.mark.parametrize("kernel,op,why", [
    (NCL.replace("matmul(a, load(", "matmul(a, load(").replace("wt[0, m:m + TM, :]", "wtt[0, :, m:m + TM]")
     .replace("wt[t, m:m + TM, :]", "wtt[t, :, m:m + TM]").replace("wt: gm f32[KW, CO, CI]", "wtt: gm f32[KW, CI, CO]")
     .replace("matmul(a, load(x[n, :, q:q + TN]", "matmul(a, load(x[n, :, q:q + TN]").replace(
         "space=l1, pad=0.0))", "space=l1, pad=0.0), transpose_a=True)"),
     NCL_OP.replace("wt.permute(1, 2, 0)", "wt.permute(2, 1, 0)").replace("torch.randn(KW, CO, CI)", "torch.randn(KW, CI, CO)"),
     "tap products read A as stored"),
    (CONV1D.replace("store(y[n, m:m + TM, q:q + TN], acc)", "store(y[n, m:m + TM, q:q + TN], relu(acc))"),
     CONV1D_OP.replace("return torch.nn", "return torch.relu(torch.nn").replace("wt.permute(1, 2, 0))", "wt.permute(1, 2, 0)))"),
     "stores its tile as it is"),
    (SHIFTED, SHIFTED_OP, "leave x"),
    # a product through the Matmul API beside the taps
    (CONV1D.replace("kernel conv1d_taps(x: gm f32[N, L, CI], wt: gm f32[KW, CO, CI]) -> (y: gm f32[N, CO, LO]):",
                    "kernel conv1d_taps(x: gm f32[N, L, CI], wt: gm f32[KW, CO, CI]) -> (y: gm f32[N, CO, LO]):\n"
                    "    const R = KW * CO\n"
                    "    scratch g: f32[R, R]\n"
                    "    w2d = view(wt, (R, CI))")
     .replace("        store(y[n, m:m + TM, q:q + TN], acc)\n",
              "        store(y[n, m:m + TM, q:q + TN], acc)\n"
              "    for i, j in parallel(cdiv(R, 16), cdiv(R, 16)):\n"
              "        ga = load(w2d[i * 16:i * 16 + 16, 0:16], space=l1, pad=0.0)\n"
              "        gacc = matmul(ga, load(w2d[j * 16:j * 16 + 16, 0:16], space=l1, pad=0.0), transpose_b=True)\n"
              "        for kk in range(16, CI, 16):\n"
              "            ga = load(w2d[i * 16:i * 16 + 16, kk:kk + 16], space=l1, pad=0.0)\n"
              "            gacc = gacc + matmul(ga, load(w2d[j * 16:j * 16 + 16, kk:kk + 16], space=l1, pad=0.0), "
              "transpose_b=True)\n"
              "        store(g[i * 16:i * 16 + 16, j * 16:j * 16 + 16], gacc)\n"),
     CONV1D_OP, "no other products yet"),
])
def test_forms_the_tap_lowering_does_not_take_are_refused_with_the_reason(tmp_path, kernel, op, why):
    """Each kernel verifies against its op in the interpreter; the lowering names what it does not take."""
    import ascendcraft
    (tmp_path / "k.dsl").write_text(kernel.lstrip("\n"))
    (tmp_path / "op.py").write_text(op)
    with pytest.raises(AscendcraftError) as info:
        ascendcraft.compile(tmp_path / "k.dsl", tmp_path / "op.py", trials=1)
    text = render(info.value)
    assert why in text and "lowering error" in text, text


# transpose: a channel-first block of x [N, C, L] written channel-last, with tails on both axes
TRANSPOSE_OP = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.permute(0, 2, 1).contiguous() * 2.0


N = 2
C = 20
L = 150


def get_inputs():
    return [torch.randn(N, C, L)]


def get_init_inputs():
    return []
"""

TRANSPOSE = """
kernel tr(x: gm f32[N, C, L]) -> (y: gm f32[N, L, C]):
    const TL = 64
    for n, lb in parallel(N, cdiv(L, TL)):
        l = lb * TL
        t = load(x[n, :, l:l + TL])
        store(y[n, l:l + TL, :], transpose(t) * 2.0)
"""


def test_transpose_of_a_tile_is_a_gather_per_output_row(tmp_path):
    k = compile_verified(tmp_path, TRANSPOSE, TRANSPOSE_OP, trials=2)
    assert "Transpose(t, out=" in k.lowered.run.levels[-1].text and "AscendC::Gather(" in k.source


# MultiKernelBench's conv_standard_1d form at the example's shapes: the channel-first sequence laid out
# channel-last by transposed blocks, the weights as [KW, CO, CI], then tap products (three phases of
# two kinds in one kernel)
CONV1D_NCL_TAPS = """
kernel conv_standard_1d(x: gm f32[N, CI, L], conv1d_weight: gm f32[CO, CI, KW]) -> (y: gm f32[N, CO, LO]):
    const TL = 128
    const TM = 64
    const TN = 96
    scratch xt: f32[N, L, CI]
    scratch wt: f32[KW, CO, CI]
    for co, kw in parallel(CO, KW):
        store(wt[kw, co, :], load(conv1d_weight[co, :, kw]))
    for n, lb in parallel(N, cdiv(L, TL)):
        l = lb * TL
        store(xt[n, l:l + TL, :], transpose(load(x[n, :, l:l + TL])))
    for n, i, j in parallel(N, cdiv(CO, TM), cdiv(LO, TN)):
        m = i * TM
        q = j * TN
        a = load(wt[0, m:m + TM, :], space=l1, pad=0.0)
        acc = matmul(a, load(xt[n, q:q + TN, :], space=l1, pad=0.0), transpose_b=True)
        for t in range(1, KW):
            a = load(wt[t, m:m + TM, :], space=l1, pad=0.0)
            acc = acc + matmul(a, load(xt[n, q + t:q + t + TN, :], space=l1, pad=0.0), transpose_b=True)
        store(y[n, m:m + TM, q:q + TN], acc)
"""


def test_a_channel_first_convolution_laid_out_channel_last_then_tap_products(tmp_path):
    from pathlib import Path
    op = (Path(__file__).resolve().parents[2] / "examples" / "convolution" / "conv_standard_1d" / "op.py").read_text()
    k = compile_verified(tmp_path, CONV1D_NCL_TAPS, op, trials=2)
    assert "KERNEL_TYPE_MIX_AIC_1_2" in k.source and "TapCopy<float, true, " in k.source
