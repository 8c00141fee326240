"""A loop of phases whose last phase is tap products (lowering_passes/tap_groups.py, codegen/taps.py):
each iteration's vector phases on the vector cores hand their output to the cube cores' tap
products, and the vector cores run up to AHEAD iterations ahead where no iteration's vector phases
touch memory the tap products of the iterations before it use; else in lock step. Against torch on
the simulator at two shape sets, whose race checks find an overlap the lowering let through."""
from pathlib import Path

from compiled import compile_verified

OP = (Path(__file__).resolve().parents[2] / "examples" / "convolution" /
      "conv_transposed_2d_square_input_square_kernel" / "op.py").read_text()

# a transposed 3 x 3 convolution: the weights and the image's zero border once, then per image its
# rows laid out channel-last (a vector phase) and its tap products (on the cube cores)
GROUPED = """
kernel conv_transposed_2d(x: gm f32[N, CI, H, W], conv_transpose2d_weight: gm f32[CI, CO, KH, KW]) -> (
        y: gm f32[N, CO, OH, OW]):
    const KK = KH * KW
    const HP = H + 2 * KH - 2
    const WP = W + 2 * KW - 2
    const TL = 32
    const TM = 16
    const TN = 16
    scratch xt: f32[N, HP, WP, CI]
    scratch wt: f32[KK, CO, CI]
    wv = view(conv_transpose2d_weight, (CI, CO, KK))
    for co, t in parallel(CO, KK):
        store(wt[t, co, :], load(wv[:, co, t]))
    for n, r, wb in parallel(N, 2 * KH - 2, cdiv(WP, TL)):
        wp = wb * TL
        store(xt[n, r + r // (KH - 1) * H, wp:wp + TL, :], full((TL, CI), 0.0, f32))
    for n in range(N):
        for h, wb in parallel(H, cdiv(WP, TL)):
            wp = wb * TL
            store(xt[n, h + KH - 1, wp:wp + TL, :], transpose(load(x[n, :, h, wp + 1 - KW:wp + 1 - KW + TL], pad=0.0)))
        for oh, i, j in parallel(OH, cdiv(CO, TM), cdiv(OW, TN)):
            m = i * TM
            q = j * TN
            a = load(wt[0, m:m + TM, :], space=l1, pad=0.0)
            acc = matmul(a, load(xt[n, oh + KH - 1, q + KW - 1:q + KW - 1 + TN, :], space=l1, pad=0.0),
                         transpose_b=True)
            for t in range(1, KK):
                a = load(wt[t, m:m + TM, :], space=l1, pad=0.0)
                acc = acc + matmul(a, load(xt[n, oh + KH - 1 - t // KW, q + KW - 1 - t % KW:q + KW - 1 - t % KW + TN, :],
                                           space=l1, pad=0.0), transpose_b=True)
            store(y[n, m:m + TM, oh, q:q + TN], acc)
"""

# the same with one image's scratch, laid out again for every image: an iteration's vector phase
# overwrites the rows the tap products of the one before read
REUSED = (GROUPED.replace("scratch xt: f32[N, HP, WP, CI]", "scratch xt: f32[HP, WP, CI]")
          .replace("for n, r, wb in parallel(N, 2 * KH - 2, cdiv(WP, TL)):", "for r, wb in parallel(2 * KH - 2, cdiv(WP, TL)):")
          .replace("xt[n, ", "xt["))


def test_the_vector_cores_run_ahead_of_the_tap_products_of_a_loop_of_phases(tmp_path):
    k = compile_verified(tmp_path, GROUPED, OP.replace("batch_size = 2", "batch_size = 4"), trials=2)
    final = k.lowered.run.levels[-1].text
    assert "groups=4" in final, final
    assert "KERNEL_TYPE_MIX_AIC_1_2" in k.source and "int64_t gi_ = 0;" in k.source
    assert "if (gi_ >= 4) { AscendC::CrossCoreWaitFlag(1); AscendC::SyncAll(); }" in k.source


def test_an_iteration_that_overwrites_what_the_taps_before_it_read_runs_in_lock_step(tmp_path):
    k = compile_verified(tmp_path, REUSED, OP, trials=2)
    final = k.lowered.run.levels[-1].text
    assert "groups=1" in final, final
    assert "if (gi_ >= 1) { AscendC::CrossCoreWaitFlag(1); AscendC::SyncAll(); }" in k.source


# two images an iteration, the last iteration one (3 images): the phases' extents use the loop's
# variable, minimum(G, N - g)
PAIRS = (GROUPED.replace("    for n in range(N):\n", "    for g in range(0, N, 2):\n")
         .replace("for h, wb in parallel(H, cdiv(WP, TL)):", "for gn, h, wb in parallel(minimum(2, N - g), H, cdiv(WP, TL)):\n"
                  "            n = g + gn")
         .replace("for oh, i, j in parallel(OH, cdiv(CO, TM), cdiv(OW, TN)):",
                  "for gn, oh, i, j in parallel(minimum(2, N - g), OH, cdiv(CO, TM), cdiv(OW, TN)):\n"
                  "            n = g + gn"))


def test_iterations_of_several_images_each_the_last_one_shorter(tmp_path):
    """Two iterations at the shapes lowered for: the vector cores run at most one ahead (only the
    distances the shape sets show are checked)."""
    k = compile_verified(tmp_path, PAIRS, OP.replace("batch_size = 2", "batch_size = 3"), trials=2)
    assert "groups=2" in k.lowered.run.levels[-1].text


# the layout written through a view of the scratch (of its own shape: the same memory under another
# name): the regions compare as intervals of the scratch's elements
THROUGH_VIEW = (GROUPED.replace("    wv = view(", "    xv = view(xt, (N, HP, WP, CI))\n    wv = view(")
                .replace("store(xt[n, h + KH - 1, wp:wp + TL, :], ", "store(xv[n, h + KH - 1, wp:wp + TL, :], "))


def test_a_layout_written_through_a_view_still_runs_ahead(tmp_path):
    k = compile_verified(tmp_path, THROUGH_VIEW, OP.replace("batch_size = 2", "batch_size = 4"), trials=2)
    assert "groups=4" in k.lowered.run.levels[-1].text
