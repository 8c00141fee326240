"""The matmul family through the cube pass: batched products (batch axes as parallel axes, B
batched or shared), transposed operands, small K, f16/bf16 operands with f32 accumulation;
each checked, lowered and run on the simulator against PyTorch with tails on every axis."""
from __future__ import annotations

import pytest

from ascendcraft.chips import load_chip
from ascendcraft.dsl.parser import parse
from ascendcraft.passes import PassError, run_passes
from ascendcraft.task import load_task
from ascendcraft.lowering_passes.cube_grid import block_extent, choose_grid

from compiled import compile_verified


def _op(forward: str, inputs: str, consts: dict) -> str:
    lines = ["import torch", "import torch.nn as nn", "class Model(nn.Module):",
             "    def forward(self, A, B):", f"        return {forward}"]
    lines += [f"{k} = {v}" for k, v in consts.items()]
    lines += ["def get_inputs():", f"    return [{inputs}]", "def get_init_inputs():", "    return []", ""]
    return "\n".join(lines)


def _kernel(sig: str, vars_: str, extents: str, a0: str, b0: str, a1: str, b1: str, c: str, kdim: str,
            flags: str = "", tk: int = 64) -> str:
    """The accumulate-over-K form with 128 x 256 tiles of C and tk-deep steps."""
    return f"""
kernel k({sig}):
    const TM = 128
    const TN = 256
    const TK = {tk}
    for {vars_} in parallel({extents}):
        m = i * TM
        n = j * TN
        ta = load({a0}, space=l1)
        acc = matmul(ta, load({b0}, space=l1){flags})
        for k in range(TK, {kdim}, TK):
            ta = load({a1}, space=l1)
            acc = acc + matmul(ta, load({b1}, space=l1){flags})
        store({c}, acc)
"""


# bf16 operands, f32 result: 3 batches of [150, 100] @ [100, 270] (tails on M, K, N and an odd
# batch count on 24 cores)
def test_a_batched_product_of_bf16_operands_accumulates_in_f32_on_the_simulator(tmp_path):
    kernel = _kernel("a: gm bf16[Z, M, K], b: gm bf16[Z, K, N]) -> (c: gm f32[Z, M, N]", "z, i, j",
                     "Z, cdiv(M, TM), cdiv(N, TN)", "a[z, m:m + TM, 0:TK]", "b[z, 0:TK, n:n + TN]",
                     "a[z, m:m + TM, k:k + TK]", "b[z, k:k + TK, n:n + TN]", "c[z, m:m + TM, n:n + TN]", "K", tk=128)
    op = _op("torch.bmm(A.float(), B.float())",
             "torch.rand(Z, M, K).bfloat16(), torch.rand(Z, K, N).bfloat16()", {"Z": 3, "M": 150, "K": 200, "N": 270})
    k = compile_verified(tmp_path, kernel, op, trials=2)
    assert "MatmulType<AscendC::TPosition::GM, CubeFormat::ND, bfloat16_t>" in k.source


# a 4-D batch of A times one transposed B (nn.Linear-like weight [N, K]) in f16, f32 result:
# A's two batch axes are C's, B has none
def test_a_4d_batch_times_one_transposed_f16_matrix(tmp_path):
    kernel = _kernel("a: gm f16[P, Q, M, K], w: gm f16[N, K]) -> (c: gm f32[P, Q, M, N]", "p, q, i, j",
                     "P, Q, cdiv(M, TM), cdiv(N, TN)", "a[p, q, m:m + TM, 0:TK]", "w[n:n + TN, 0:TK]",
                     "a[p, q, m:m + TM, k:k + TK]", "w[n:n + TN, k:k + TK]", "c[p, q, m:m + TM, n:n + TN]", "K",
                     flags=", transpose_b=True", tk=128)
    op = _op("torch.matmul(A.float(), B.float().T)", "torch.rand(P, Q, M, K).half(), torch.rand(N, K).half()",
             {"P": 2, "Q": 3, "M": 140, "K": 300, "N": 260})
    compile_verified(tmp_path, kernel, op, trials=2)


# transposed A inside a batch, and K = 20 shorter than one 64-deep step (the K loop never runs)
def test_a_batched_transposed_a_with_a_k_below_one_step(tmp_path):
    kernel = _kernel("a: gm f32[Z, K, M], b: gm f32[Z, K, N]) -> (c: gm f32[Z, M, N]", "z, i, j",
                     "Z, cdiv(M, TM), cdiv(N, TN)", "a[z, 0:TK, m:m + TM]", "b[z, 0:TK, n:n + TN]",
                     "a[z, k:k + TK, m:m + TM]", "b[z, k:k + TK, n:n + TN]", "c[z, m:m + TM, n:n + TN]", "K",
                     flags=", transpose_a=True")
    op = _op("torch.bmm(A.transpose(1, 2), B)", "torch.rand(Z, K, M), torch.rand(Z, K, N)",
             {"Z": 4, "K": 20, "M": 130, "N": 300})
    compile_verified(tmp_path, kernel, op, trials=2)


_BMM = _kernel("a: gm f32[Z, M, K], b: gm f32[Z, K, N]) -> (c: gm f32[Z, M, N]", "z, i, j",
               "Z, cdiv(M, TM), cdiv(N, TN)", "a[z, m:m + TM, 0:TK]", "b[z, 0:TK, n:n + TN]",
               "a[z, m:m + TM, k:k + TK]", "b[z, k:k + TK, n:n + TN]", "c[z, m:m + TM, n:n + TN]", "K")
_BMM_OP = _op("torch.bmm(A, B)", "torch.rand(Z, M, K), torch.rand(Z, K, N)", {"Z": 5, "M": 150, "K": 100, "N": 270})


def _cube(tmp_path, text: str, op: str = _BMM_OP):
    (tmp_path / "op.py").write_text(op)
    task = load_task(tmp_path / "op.py")
    from ascendcraft.lowering_passes.cube import Cube
    return run_passes(parse(text.lstrip("\n"), "k.dsl"), [Cube()], task=task, shapes=task.shapes(),
                      chip=load_chip("910B2"), trials=1)


def test_batches_become_work_items_over_the_cores(tmp_path):
    run = _cube(tmp_path, _BMM)
    after = run.final.text
    assert "for _w0 in parallel(Z * (_gm0 * _gn0)):" in after
    assert ("store(c[_z0, _r0:_r0 + _sm0, _c0:_c0 + _sn0], Matmul(a[_z0, _r0:_r0 + _sm0, 0:K], "
            "b[_z0, 0:K, _c0:_c0 + _sn0], base=(TM, TN, TK)))") in after
    assert "matmul(" not in after and "5 batches of" in run.final.notes[0]


_SHARED_B = _kernel("a: gm f32[Z, M, K], b: gm f32[K, N]) -> (c: gm f32[Z, M, N]", "z, i, j",
                    "Z, cdiv(M, TM), cdiv(N, TN)", "a[z, m:m + TM, 0:TK]", "b[0:TK, n:n + TN]",
                    "a[z, m:m + TM, k:k + TK]", "b[k:k + TK, n:n + TN]", "c[z, m:m + TM, n:n + TN]", "K")
_SHARED_B_OP = _op("torch.matmul(A, B)", "torch.rand(Z, M, K), torch.rand(K, N)", {"Z": 3, "M": 150, "K": 100, "N": 270})


# a batch of A's matrices times one B is one product over A's and C's rows (the batch axes merged
# into them by views), whose grid is chosen over all rows; tails on M, K, N
def test_a_batch_times_one_matrix_is_one_product_over_the_merged_rows(tmp_path):
    run = _cube(tmp_path, _SHARED_B, _SHARED_B_OP)
    after = run.final.text
    assert "const _fm0 = Z * M" in after and "_av0 = view(a, (_fm0, K))" in after
    assert "_cv0 = view(c, (_fm0, N))" in after and "Matmul(_av0[_r0:_r0 + _sm0, 0:K]" in after
    assert run.final.notes[0] == "cube: the batch axis of a and c merged into their rows (b is one matrix for every batch)"
    assert "batches of" not in " ".join(run.final.notes)
    compile_verified(tmp_path, _SHARED_B, _SHARED_B_OP, trials=2)


@pytest.mark.parametrize("old, new, reason", [
    ("a[z, m:m + TM, k:k + TK]", "a[0, m:m + TM, k:k + TK]", "different"),      # another batch in the K loop
    ("b[z, ", "b[0, ", "batch indices must be C's"),                      # c[z] = a[z] @ b[0]
])
def test_batch_forms_the_lowering_cannot_cover_are_refused_with_the_reason(tmp_path, old, new, reason):
    assert old in _BMM
    with pytest.raises(PassError) as e:
        _cube(tmp_path, _BMM.replace(old, new, 1 if "TK]" in old else -1))
    assert e.value.pass_name == "cube" and "not a K accumulation" in str(e.value)
    if reason == "different":
        assert "same rows (columns)" in str(e.value)
    else:
        assert reason in str(e.value)


def test_a_batched_grid_balances_the_busiest_core():
    # 128 batches of 128 x 512 on 24 cores: one block per batch leaves 8 cores a sixth item;
    # the chosen grid's busiest core does less base-block work
    def busiest(grid):
        gm, gn = grid
        items = -(-128 * gm * gn // 24)
        return items * block_extent(128, gm) * block_extent(512, gn)
    grid = choose_grid(128, 512, 24, (128, 256), 2048, 4, 110.0, batches=128)
    assert grid[0] * grid[1] <= 24 and busiest(grid) < busiest((1, 1))


# the simulator's Matmul cost: a core's later products read the shared B's base tiles from L2
# (the Matmul object remembers the tiles it loaded), not HBM again; 96 batches on 24 cores
def test_a_shared_b_crosses_hbm_once_per_core_not_once_per_batch(tmp_path):
    import ascendcraft
    kernel = _kernel("a: gm f32[P, Q, M, K], b: gm f32[K, N]) -> (c: gm f32[P, Q, M, N]", "p, q, i, j",
                     "P, Q, cdiv(M, TM), cdiv(N, TN)", "a[p, q, m:m + TM, 0:TK]", "b[0:TK, n:n + TN]",
                     "a[p, q, m:m + TM, k:k + TK]", "b[k:k + TK, n:n + TN]", "c[p, q, m:m + TM, n:n + TN]", "K")
    consts = {"P": 8, "Q": 12, "M": 40, "K": 64, "N": 48}
    (tmp_path / "k.dsl").write_text(kernel.lstrip("\n"))
    (tmp_path / "op.py").write_text(_op("torch.matmul(A, B)", "torch.rand(P, Q, M, K), torch.rand(K, N)", consts))
    k = ascendcraft.compile(tmp_path / "k.dsl", tmp_path / "op.py", trials=1, model_time=True)
    assert k.report["backend_verification"]["verdict"] == "PASS"
    read = sum(c.gm_read for c in k.lowered.cost.per_core)
    a_bytes, b_bytes = 8 * 12 * 40 * 64 * 4, 64 * 48 * 4
    assert a_bytes <= read <= a_bytes + 24 * b_bytes      # not a_bytes + 96 * b_bytes


# matrix-vector on the vector units: K split over the cores, [R, KC] row tiles times the chunk
# of the vector summed per row (a GetValue per row on the scalar unit), so the next row tile is
# loaded before the current one is reduced; M = 37 and K = 1000 leave tails on both axes
def test_a_matrix_vector_product_splits_k_and_prefetches_its_row_tiles(tmp_path):
    kernel = """
kernel mv(a: gm f32[M, K], b: gm f32[K, 1]) -> (c: gm f32[M, 1]):
    const KC = cdiv(cdiv(K, CORES), 8) * 8
    const NC = cdiv(K, KC)
    const R = 5
    scratch part: f32[NC, M]
    for q in parallel(NC):
        k0 = q * KC
        v = load(b[k0:k0 + KC, 0])
        for r in range(0, M, R):
            store(part[q, r:r + R], sum(load(a[r:r + R, k0:k0 + KC]) * v, axis=1))
    store(c[:, 0], sum(load(part), axis=0))
"""
    op = _op("torch.matmul(A, B)", "torch.rand(M, K), torch.rand(K, 1)", {"M": 37, "K": 1000})
    k = compile_verified(tmp_path, kernel, op, trials=2)
    prefetch = next(p for p in k.report["passes"] if p["name"] == "prefetch")
    line = 1 + kernel.lstrip("\n").splitlines().index("        for r in range(0, M, R):")
    assert f"prefetch: the loop at line {line} over r loads 1 tile(s) one iteration ahead" in prefetch["notes"]


# diag(a) @ b needs no cube: row i of b scaled by a[i] (a one-value tile read on the scalar
# unit, then Muls), rows and column tiles spread over the vector cores; M = 9000 leaves a tail
def test_a_diagonal_matrix_times_a_matrix_is_a_row_scaling_on_the_vector_units(tmp_path):
    kernel = """
kernel diag_matmul(a: gm f32[N], b: gm f32[N, M]) -> (c: gm f32[N, M]):
    const T = 8192
    for i, j in parallel(N, cdiv(M, T)):
        store(c[i, j * T:j * T + T], load(b[i, j * T:j * T + T]) * load(a[i]))
"""
    op = _op("torch.diag(A) @ B", "torch.randn(N), torch.randn(N, M)", {"N": 37, "M": 9000})
    k = compile_verified(tmp_path, kernel, op, trials=2)
    assert "IterateAll" not in k.source and "AscendC::Muls" in k.source


# a phase without a product in a kernel that uses the cube runs on both vector cores of each
# block (partition: parallel(2 * CORES); a MIX_AIC_1_2 launch), the product phase on the first
def test_a_vector_phase_of_a_cube_kernel_runs_on_every_vector_core(tmp_path):
    import ascendcraft
    kernel = """
kernel mm_relu(x: gm f32[M, K], w: gm f32[K, N]) -> (y: gm f32[M, N]):
    const TM = 128
    const TN = 128
    const TK = 64
    const R = 4
    scratch c: f32[M, N]
    for i, j in parallel(cdiv(M, TM), cdiv(N, TN)):
        m = i * TM
        n = j * TN
        a = load(x[m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(w[0:TK, n:n + TN], space=l1))
        for k in range(TK, K, TK):
            a = load(x[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(a, load(w[k:k + TK, n:n + TN], space=l1))
        store(c[m:m + TM, n:n + TN], acc)
    for r in parallel(cdiv(M, R)):
        store(y[r * R:r * R + R, :], relu(load(c[r * R:r * R + R, :])))
"""
    (tmp_path / "k.dsl").write_text(kernel.lstrip("\n"))
    (tmp_path / "op.py").write_text(_op("torch.relu(A @ B)", "torch.randn(M, K), torch.randn(K, N)",
                                        {"M": 300, "K": 200, "N": 170}))
    k = ascendcraft.compile(tmp_path / "k.dsl", tmp_path / "op.py", trials=2, model_time=True)
    assert k.report["backend_verification"]["verdict"] == "PASS"
    assert "core1_u < (2 * AscendC::GetBlockNum())" in k.source
    cores = sorted(k.lowered.cost.per_core, key=lambda c: c.block)
    assert [c.kind for c in cores] == ["aiv"] * 48
    assert all(c.vector_elements > 0 for c in cores)                    # 75 row blocks over 48 AIVs
    # the first AIV of a block drives its AIC
    assert all(c.cube_macs == 0 for c in cores[1::2]) and any(c.cube_macs > 0 for c in cores[::2])
