"""The fit pass: a tile size the checker accepts but the lowering's buffers do not fit is shrunk
(and verified), never refused; check names the tile size that keeps double buffering."""
from __future__ import annotations

from pathlib import Path

from ascendcraft.checking import check_kernel
from ascendcraft.dsl.parser import parse
from ascendcraft.lowering_passes.fit import tile_constants

from compiled import compile_verified

ROOT = Path(__file__).resolve().parents[2]
CUMSUM = ROOT / "examples" / "math" / "cumsum"

WLOSS = """
kernel wloss(p: gm f32[N, M], t: gm f32[N, M], w: gm f32[N, M]) -> (loss: gm f32[]):
    const T = TILE
    scratch part: f32[N]
    for i in parallel(N):
        acc = 0.0
        for j in range(0, M, T):
            a = load(p[i, j:j + T])
            b = load(t[i, j:j + T])
            c = load(w[i, j:j + T])
            d = a - b
            e = c * d * d + abs(d)
            acc = acc + sum(e)
        store(part[i], acc)
    store(loss, sum(load(part)) / (N * M))
"""

WLOSS_OP = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, p, t, w):
        return torch.mean(w * (p - t) ** 2 + torch.abs(p - t))

N = 37
M = 20000

def get_inputs():
    return [torch.randn(N, M), torch.randn(N, M), torch.rand(N, M)]

def get_init_inputs():
    return []
"""


def _cumsum_at(tmp_path, tile: int) -> Path:
    k = tmp_path / "k.dsl"
    k.write_text((CUMSUM / "kernel.dsl").read_text().replace("const T = 4096", f"const T = {tile}"))
    return k


def _wloss_at(tmp_path, tile: int) -> tuple[Path, Path]:
    (tmp_path / "k.dsl").write_text(WLOSS.replace("TILE", str(tile)).lstrip("\n"))
    (tmp_path / "op.py").write_text(WLOSS_OP)
    return tmp_path / "k.dsl", tmp_path / "op.py"


def _plan(kernel: Path, op: Path):
    return check_kernel(kernel, op, trials=1, other_shapes=False, plan=True)


def test_tile_size_constants_are_the_ones_only_used_as_steps_and_slice_lengths():
    k = parse("""
kernel k(x: gm f32[B, N]) -> (y: gm f32[B, N], z: gm f32[B]):
    const T = 4096
    const U = 512
    const TW = minimum(N, U)
    const V = 64
    const W = 8
    const S = 256
    scratch part: f32[B, S]
    for b in parallel(B):
        acc = zeros((TW,), f32)
        for j in range(0, N, T):
            store(y[b, j:j + T], load(x[b, j:j + T]) * 2.0)
        for j in range(0, N, TW):
            acc = acc + load(x[b, j:j + TW], pad=0.0)
        s = 0.0
        for j in range(0, N, V):
            s = s + sum(load(x[b, j:j + V])) * (j // V)
        store(z[b], s + sum(acc) + W)
""", "k.dsl")
    # V is also a divisor (j // V) and W a value: changing them changes the result
    assert set(tile_constants(k)) == {"T", "U"}
    assert tile_constants(k)[0] == "T"    # largest first


PARALLEL_ERF = """
kernel perf(x: gm f32[*S]) -> (y: gm f32[*S]):
    const TS = TILE
    for b in parallel(cdiv(S, TS)):
        store(y[b * TS:b * TS + TS], erf(load(x[b * TS:b * TS + TS])))
"""

PARALLEL_ERF_OP = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return torch.erf(x)

N = 37
M = 40001

def get_inputs():
    return [torch.randn(N, M)]

def get_init_inputs():
    return []
"""


def _parallel_erf_at(tmp_path, tile: int) -> tuple[Path, Path]:
    (tmp_path / "k.dsl").write_text(PARALLEL_ERF.replace("TILE", str(tile)).lstrip("\n"))
    (tmp_path / "op.py").write_text(PARALLEL_ERF_OP)
    return tmp_path / "k.dsl", tmp_path / "op.py"


def test_a_parallel_loops_tile_count_and_position_are_tile_size_uses_a_row_width_is_not():
    k = parse("""
kernel k(x: gm f32[R, N], z: gm f32[M]) -> (y: gm f32[R, N], w: gm f32[M]):
    const T = 4096
    const W = 1024
    for b in parallel(cdiv(M, T)):
        store(w[b * T:b * T + T], load(z[b * T:b * T + T]) * 2.0)
    for r in parallel(R):
        store(y[r, 0:W], load(x[r, 0:W]))
        store(y[r, W:N], load(x[r, W:N]))
""", "k.dsl")
    # W is a position of its own (not a tile count's divisor): changing it moves the split
    assert tile_constants(k) == ["T"]


def test_a_parallel_loops_tile_is_lowered_at_the_size_that_keeps_it_double_buffered(tmp_path):
    r = _plan(*_parallel_erf_at(tmp_path, 8192))
    (fit,) = r.plan.fits
    size = fit.used[0]
    assert fit.writer_fits and size < 8192 and not r.plan.single_buffered
    assert f"lower uses TS = {size}, which keeps two slots" in r.summary()
    assert not _plan(*_parallel_erf_at(tmp_path, size)).plan.single_buffered


def test_a_tile_with_no_room_for_a_queue_counts_as_not_overlapped(tmp_path):
    # at 11264 the erf's work buffers leave no room for a copy-in queue at all: each tile's load
    # waits for the compute before it, as a single-buffered queue's does
    r = _plan(*_parallel_erf_at(tmp_path, 11264))
    (fit,) = r.plan.fits
    assert fit.writer_fits and fit.single_lines == (4,) and fit.used == fit.double
    assert "note: at TS = 11264 (line 2) the tiles of line 4 would have one queue slot or none" in r.summary()
    assert not r.plan.unqueued and r.plan.to_json()["unqueued_lines"] == []
    # the lowered plan at the writer's size, as a pass that kept it would leave it, names the tile
    from ascendcraft.plan import BufferPlan
    kept = BufferPlan((), 0, fit.capacity, (), unqueued=(4,))
    assert "the tiles of line 4 are copied in or out through a work buffer: the UB has no room for a queue" \
        in kept.summary()


def test_a_parallel_loops_tile_the_buffers_do_not_fit_is_lowered_smaller(tmp_path):
    kernel, op = _parallel_erf_at(tmp_path, 16384)     # the checker's three live tiles take the whole UB
    r = _plan(kernel, op)
    assert r.plan.refused is None, r.plan.refused
    (fit,) = r.plan.fits
    assert fit.writer_bytes > fit.capacity - 256 and fit.used[0] < 16384     # 256 bytes kept for scalar math
    compile_verified(tmp_path, kernel.read_text(), op.read_text(), trials=2)


def test_a_scan_whose_work_areas_overflow_the_ub_is_lowered_with_a_smaller_tile(tmp_path):
    """At T = 12000 the checker's tiles take 144 KB, but the scan's work areas make 241,920 bytes."""
    k = _cumsum_at(tmp_path, 12000)
    r = _plan(k, CUMSUM / "op.py")
    assert r.plan.refused is None, r.plan.refused
    fit = r.plan.fits[0]
    assert fit.writer_bytes > fit.capacity and fit.used is not None and fit.used[0] < 12000
    assert r.plan.ub_bytes <= r.plan.ub_capacity
    assert f"lower uses T = {fit.used[0]}" in r.summary()
    op = (CUMSUM / "op.py").read_text()
    compiled = compile_verified(tmp_path, k.read_text(), op, trials=2)
    notes = [n for p in compiled.report["passes"] for n in p["notes"]]
    assert any(n.startswith("fit: at T = 12000") and f"T = {fit.used[0]}" in n for n in notes)


def test_a_kernel_that_fits_only_single_buffered_is_lowered_double_buffered_and_verifies(tmp_path):
    kernel, op = _wloss_at(tmp_path, 9800)
    r = _plan(kernel, op)
    (fit,) = r.plan.fits
    assert r.plan.refused is None and fit.writer_fits and fit.single_lines and fit.used == fit.double
    assert not r.plan.single_buffered
    compiled = compile_verified(tmp_path, kernel.read_text(), op.read_text(), trials=2)
    notes = [n for p in compiled.report["passes"] for n in p["notes"]]
    assert any(n.startswith("fit: at T = 9800") and f"lowered with T = {fit.used[0]} (double-buffered)" in n
               for n in notes)


def test_lower_uses_the_largest_tile_size_that_keeps_double_buffering_and_check_names_it(tmp_path):
    kernel, op = _wloss_at(tmp_path, 8192)
    r = _plan(kernel, op)
    (fit,) = r.plan.fits
    size = fit.used[0]
    assert fit.writer_fits and fit.used == fit.double and size < 8192 and not r.plan.single_buffered
    assert "note: at T = 8192 (line 2) the tiles of line" in r.summary()
    assert f"lower uses T = {size}, which keeps two slots" in r.summary()
    # the claim, checked by planning again: at that size no loop tile is single-buffered and nothing
    # changes; one step up the fit comes down to it again
    at = _plan(*_wloss_at(tmp_path, size))
    assert not at.plan.single_buffered and at.plan.fits == ()
    (above,) = _plan(*_wloss_at(tmp_path, size + 64)).plan.fits
    assert above.single_lines and above.used == (size,)


def test_a_tile_size_bounded_by_an_axis_is_fitted_too(tmp_path):
    """`const T = minimum(N, 12000)`: the bound is the writer's tile size; iota and zeros extents are
    tile extents too."""
    k = parse("""
kernel k(x: gm f32[N]) -> (y: gm f32[N]):
    const T = minimum(N, 12000)
    for j in range(0, N, T):
        store(y[j:j + T], load(x[j:j + T]) + cast(iota(T, i32, start=j), f32) + zeros((T,), f32))
""", "k.dsl")
    assert tile_constants(k) == ["T"]
    kernel = tmp_path / "k.dsl"
    kernel.write_text((CUMSUM / "kernel.dsl").read_text().replace("const T = 4096", "const T = minimum(N, 12000)"))
    r = _plan(kernel, CUMSUM / "op.py")
    assert r.plan.refused is None, r.plan.refused
    (fit,) = r.plan.fits
    assert fit.consts[0][2] == 12000 and fit.used[0] < 12000
    assert f"lower uses T = {fit.used[0]}" in r.summary()


# [8192 // TW, TW] tiles: at dim = 32 (the op's) rows are whole 32-byte blocks and the queues fit
# double-buffered; at dim = 17 (the second shape set the kernel is verified at) each row pads to 24
# values and the same plan overflows the UB (it did, on the simulator: InitBuffer ... UB capacity
# exceeded). The plan must hold at every shape set the kernel runs at.
_PADDED_ROWS_OP = """
import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2.0
batch = 700
dim = 32
def get_inputs():
    return [torch.randn(batch, dim)]
def get_init_inputs():
    return []
"""
_PADDED_ROWS = """
kernel r(x: gm f32[B, N]) -> (y: gm f32[B, N]):
    const T = 8192
    const TW = minimum(N, T)
    const RB = maximum(1, T // TW)
    for rb, cb in parallel(cdiv(B, RB), cdiv(N, TW)):
        r = rb * RB
        c = cb * TW
        store(y[r:r + RB, c:c + TW], relu(load(x[r:r + RB, c:c + TW])) * 2.0)
"""


def test_the_buffer_plan_fits_every_shape_set_the_kernel_is_verified_at(tmp_path):
    k = compile_verified(tmp_path, _PADDED_ROWS, _PADDED_ROWS_OP, trials=2)
    second = k.report["backend_second_shapes_verification"]["shapes"]["inputs"][0]["shape"]
    assert second[1] % 8, second          # a shape set whose rows pad (else this test tests nothing)
