"""Before/after tests of the lowering passes, and the pass manager's checks between them."""
import re
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest

from ascendcraft.chips import load_chip
from ascendcraft.dsl import ast as A
from ascendcraft.dsl.checker import Binding, check
from ascendcraft.dsl.interpreter import interpret
from ascendcraft.errors import DSLError
from ascendcraft.dsl.parser import parse
from ascendcraft.dsl.printer import print_kernel
from ascendcraft.lower import default_passes
from ascendcraft.passes import PassError, run_passes
from ascendcraft.task import load_task
from ascendcraft.lowering_passes.base import LoweringPass
from ascendcraft.lowering_passes.partition import Partition

ROOT = Path(__file__).resolve().parents[2]
SOFTMAX = ROOT / "examples" / "activation" / "softmax"


def _chain_to(last: str):
    """The default chain up to and including the pass named ``last``."""
    chain = default_passes()
    return chain[:[p.name for p in chain].index(last) + 1]


def _large_inputs(chain):
    """The chain without hoist: cross_entropy_loss's class indices, loaded one per row, are small at
    the example's shapes (hoisted: read from one whole tile) but 256 KiB at MultiKernelBench's,
    where each row loads its own; the tests of those loads pin the latter."""
    return tuple(p for p in chain if p.name != "hoist")


def _task(d):
    return load_task(d / "op.py")


def _lower(kernel_text, d, passes):
    task = _task(d)
    return run_passes(parse(kernel_text, "k.dsl"), passes, task=task, shapes=task.shapes(),
                      chip=load_chip("910B2"), trials=2)


def test_partition_spreads_a_two_index_phase_over_the_cores():
    k = parse("kernel k(x: gm f32[B, N]) -> (y: gm f32[B, N]):\n"
              "    for b, c in parallel(B, N):\n"
              "        store(y[b, c], load(x[b, c]))\n")
    out = print_kernel(Partition().run(k, None))
    assert out == (
        "kernel k(x: gm f32[B, N]) -> (y: gm f32[B, N]):\n"
        "    for core0 in parallel(CORES):\n"
        "        for f0 in range(core0 * (B * N // CORES) + minimum(core0, B * N % CORES), "
        "(core0 + 1) * (B * N // CORES) + minimum(core0 + 1, B * N % CORES)):\n"
        "            b = f0 // N\n"
        "            c = f0 % N\n"
        "            store(y[b, c], load(x[b, c]))\n")


def test_every_level_of_softmax_is_checked_and_ends_in_api_ops_with_queues():
    run = _lower((SOFTMAX / "kernel.dsl").read_text(), SOFTMAX, default_passes())
    assert [lv.pass_name for lv in run.levels] == ["source", "cube", "partition", "collapse", "linearize", "hoist",
                                                  "strides", "unstack", "windows", "widen", "select", "fit", "bufferize",
                                                  "pipeline", "prefetch", "deepen"]
    assert run.levels[1].text == run.levels[0].text    # no matmul: cube leaves the kernel alone
    final = run.final.text
    assert "ReduceMax(" in final and "Exp(" in final and "out=qin" in final and "free(" in final
    assert "buffer qin0: vecin f32[" in final and "* 2" in final     # double buffered
    # the select level computes with API ops but has no buffers yet
    select = next(lv.text for lv in run.levels if lv.pass_name == "select")
    assert "Adds(" in select and "out=" not in select


@dataclass(frozen=True)
class _DropOneOp(LoweringPass):
    """A deliberately wrong pass: turns every Exp into Abs."""

    name: str = "broken_select"

    def run(self, kernel, ctx):
        def fix(e):
            if isinstance(e, A.Call):
                return replace(e, func="Abs" if e.func == "Exp" else e.func, args=tuple(fix(a) for a in e.args))
            return e

        def stmt(s):
            if isinstance(s, A.Assign):
                return replace(s, value=fix(s.value))
            if isinstance(s, (A.For, A.ParallelFor)):
                return replace(s, body=tuple(stmt(b) for b in s.body))
            return s
        return replace(kernel, body=tuple(stmt(s) for s in kernel.body))


def test_a_wrong_pass_is_caught_and_named():
    passes = list(default_passes())
    passes.insert([p.name for p in passes].index("select") + 1, _DropOneOp())       # right after select
    with pytest.raises(PassError) as info:
        _lower((SOFTMAX / "kernel.dsl").read_text(), SOFTMAX, passes)
    err = info.value
    assert err.pass_name == "broken_select"
    assert "computes something else" in err.message
    assert "Exp(" in err.before and "Abs(" in err.after and "Exp(" not in err.after


def test_bufferize_reuses_a_dead_tiles_buffer():
    run = _lower((SOFTMAX / "kernel.dsl").read_text(), SOFTMAX, _chain_to("bufferize"))
    text = run.final.text
    # t, _t1 = Adds(t, ...), _t2 = Exp(_t1) all live in one buffer: each dies where the next is made
    assert text.count("buffer b") == 1 and "rwork" in text


def _interpret_1d(text: str, n: int, cores=None):
    """Check and interpret a lowered-form kernel y = f(x) over x: f32[N] with N = n."""
    ck = check(parse(text, "k.dsl"), Binding({"N": n}, {}), load_chip("910B2"))
    interpret(ck, {"x": np.ones(n, np.float32), "y": np.zeros(n, np.float32)}, cores=cores)


def test_sharing_a_buffer_between_live_tiles_is_a_run_time_error():
    text = ("kernel k(x: gm f32[N]) -> (y: gm f32[N]):\n"
            "    buffer b0: veccalc f32[64]\n"
            "    for core in parallel(CORES):\n"
            "        for j in range(core * 64, minimum(N, core * 64 + 64), 64):\n"
            "            t = load(x[j:j + 64], out=b0)\n"
            "            u = Exp(t, out=b0)\n"
            "            v = Add(t, u, out=b0)\n"
            "            store(y[j:j + 64], v)\n")
    with pytest.raises(DSLError, match="read after its buffer b0"):
        _interpret_1d(text, 128)


def test_a_queue_slot_must_be_freed_before_reuse():
    text = ("kernel k(x: gm f32[N]) -> (y: gm f32[N]):\n"
            "    buffer q: vecin f32[64] * 2\n"
            "    buffer b: veccalc f32[64]\n"
            "    for core in parallel(CORES):\n"
            "        for j in range(0, N, 64):\n"
            "            t = load(x[j:j + 64], out=q)\n"
            "            u = Exp(t, out=b)\n"
            "            store(y[j:j + 64], u)\n")
    with pytest.raises(DSLError, match="all 2 slots are allocated"):
        _interpret_1d(text, 256, cores=1)


def test_an_op_without_a_selection_rule_names_the_op_and_the_line():
    d = ROOT / "examples" / "math" / "cumprod"         # a padded window of a computed tile: no rule
    kernel = (d / "kernel.dsl").read_text().replace("cumprod(t) * carry", "cumprod(t) * carry + 0.0 * sum(window_max(zeros((8,), f32), kernel=(3,), padding=1))")
    with pytest.raises(PassError) as info:
        _lower(kernel, d, default_passes())
    assert info.value.pass_name == "select"
    assert "no AscendC selection rule for `window_max(zeros((8,), f32), kernel=(3,), padding=1)`" in info.value.message


def test_a_sum_over_the_rows_of_a_2d_tile_becomes_sum_rows():
    d = ROOT / "examples" / "reduce" / "sum_reduction_over_a_dimension"
    run = _lower((d / "kernel.dsl").read_text(), d, _chain_to("select"))
    assert "acc = SumRows(_t0)" in run.final.text and "_t2 = SumRows(_t1)" in run.final.text


def test_prefetch_loads_the_next_tile_before_the_reduction_of_the_current_one():
    run = _lower((SOFTMAX / "kernel.dsl").read_text(), SOFTMAX, default_passes())
    text = run.final.text
    loop = text[text.index("for j in range(0, N, T):"):]
    first = loop.splitlines()[1:4]
    assert first[0].strip() == "t = _pf0"
    assert first[2].strip().startswith("_pf0 = load(x[b, _j1:_j1 + T], out=qin")   # j + T, one ahead
    assert "free(_pf0)" in text                       # the last prefetch is released after the loop
    # the store-only second pass has no scalar wait, so it is left alone
    assert text.count("_pf") == text[:text.index("r = reciprocal")].count("_pf")


def test_scans_select_to_cumsum_with_work_buffers_and_gather_tables():
    d = ROOT / "examples" / "math" / "cumsum_reverse"
    run = _lower((d / "kernel.dsl").read_text(), d, default_passes())
    text = run.final.text
    assert "CumSum(t, reverse=True, out=" in text
    assert "buffer swork: veccalc f32[" in text and "buffer sidx: veccalc i32[" in text


def test_a_bool_mask_from_gm_becomes_a_bit_mask_before_select():
    d = ROOT / "examples" / "math" / "masked_cumsum"
    text = _lower((d / "kernel.dsl").read_text(), d, _chain_to("select")).final.text
    assert "Cast(_t0, f16)" in text and 'CompareScalar(_a0, 0.0, mode="ne")' in text and "Select(_a1, " in text


def test_collapse_turns_a_nested_tile_loop_into_one_loop():
    d = ROOT / "examples" / "normalization" / "instance_norm"
    text = _lower((d / "kernel.dsl").read_text(), d, _chain_to("collapse")).final.text
    assert "for h in range" not in text and "for w in range" not in text
    assert "for _hw0 in range(maximum(cdiv(H - 0, R), 0) * maximum(cdiv(W - 0, TW), 0)):" in text
    assert "h = 0 + _hw0 // cdiv(W - 0, TW) * R" in text


_LOOP_VAR_NAMED_LIKE_A_KERNEL_VALUE = """
kernel k(x: gm f32[B, N], negative_slope: f32 = 0.01) -> (y: gm f32[B, N]):
    const T = 1024
    const RB = 4
    j = 0
    for p in parallel(1):
        for i in range(0, B, RB):
            for j in range(0, N, T):
                t = load(x[i:i + RB, j:j + T])
                store(y[i:i + RB, j:j + T], where(t >= 0.0, t, t * negative_slope))
"""


def test_collapse_renames_a_loop_variable_that_a_kernel_level_value_also_names(tmp_path):
    # collapsing makes the loop variable an assignment, and a phase may not assign a kernel-level
    # name: check passed this kernel and lower refused it at an intermediate level
    from compiled import compile_verified
    d = ROOT / "examples" / "activation" / "leaky_relu"
    text = _lower(_LOOP_VAR_NAMED_LIKE_A_KERNEL_VALUE, d, _chain_to("collapse")).final.text
    assert "            _j0 = 0 + _ij0 % cdiv(N - 0, T) * T" in text
    compile_verified(tmp_path, _LOOP_VAR_NAMED_LIKE_A_KERNEL_VALUE, (d / "op.py").read_text(), trials=2)


def test_pooling_selects_a_window_op_whose_output_never_shares_its_inputs_buffer():
    d = ROOT / "examples" / "pooling" / "average_pooling_1d"
    text = _lower((d / "kernel.dsl").read_text(), d, default_passes()).final.text
    window = next(line for line in text.splitlines() if "WindowAvg(" in line)
    assert "kernel=(kernel_size,), stride=(stride,)" in window
    loaded = next(line for line in text.splitlines() if "pad=0.0" in line)
    assert loaded.split("out=")[1].rstrip(")") != window.split("out=")[1].rstrip(")")
    assert "buffer wwork: veccalc f32[" in text and "buffer widx: veccalc i32[" in text


def test_a_one_value_integer_tile_indexes_gm_after_it_is_read_on_the_scalar_unit():
    d = ROOT / "examples" / "loss" / "cross_entropy_loss"
    text = _lower((d / "kernel.dsl").read_text(), d, _large_inputs(_chain_to("select"))).final.text
    read = next(line.strip() for line in text.splitlines() if "GetValue(" in line and "= GetValue(_v" in line)
    index = read.split(" = ")[0]
    assert f"load(x[b, {index}])" in text


def test_queues_go_to_tiles_in_loops_sized_by_what_they_copy():
    d = ROOT / "examples" / "normalization" / "layer_norm"
    text = _lower((d / "kernel.dsl").read_text(), d, _chain_to("pipeline")).final.text
    # the per-slab sums are one-value stores: their queues hold 64 floats, not a 4096-float tile
    store_q = re.search(r"_v1 = Duplicate\(\(\), s, f32, out=(qout\d+)\)", text).group(1)
    size = re.search(rf"buffer {store_q}: vecout f32\[(_n\d+)\] \* 2", text).group(1)
    assert f"const {size} = 64\n" in text
    # so the weight and bias tiles of the hot loop get queues as well
    assert re.search(r"wt = load\(ln_weight\[.*out=qin\d+\)", text)
    d = ROOT / "examples" / "loss" / "cross_entropy_loss"
    text = _lower((d / "kernel.dsl").read_text(), d, _chain_to("pipeline")).final.text
    # the one-off load of the partials after the phase stays in a TBuf
    assert re.search(r"= load\(part, out=b\d+\)", text)


def test_a_one_value_read_waits_where_its_value_is_first_used():
    d = ROOT / "examples" / "loss" / "cross_entropy_loss"
    text = _lower((d / "kernel.dsl").read_text(), d, default_passes()).final.text
    # the picked logit is copied at the row's start and read after the row's reductions
    assert text.index("picked = GetValue(") > text.rindex("for j in range(")
    assert re.search(r"picked = GetValue\((_v\d+)\)\n +free\(\1\)\n +acc = acc \+", text)


def test_a_prefetched_index_is_loaded_again_only_after_its_read():
    # the next row's class index is copied after this row's index was read and freed: the
    # scalar unit's wait for a copy waits for every copy issued before it (an event, not the
    # buffer), so reading after issuing the next index's copy would wait for that copy too
    d = ROOT / "examples" / "loss" / "cross_entropy_loss"
    text = _lower((d / "kernel.dsl").read_text(), d, _large_inputs(default_passes())).final.text
    m = re.search(r"(_v\d+) = (_pf\d+)\n +(_t\d+) = GetValue\(\1\)\n +free\(\1\)\n +_b\d+ = b \+ 1\n"
                  r" +\2 = load\(t\[", text)
    assert m, text[text.index("for b in range"):][:600]


def test_an_inner_loops_first_tile_prefetched_an_outer_iteration_ahead_has_a_queue_of_its_own():
    # cross entropy: the next row's first tile is loaded while this row is computed. In the row
    # queue it would mix two tile names (a DeQue pops the oldest, so it could not wait for the use);
    # with a queue of its own and the inner loop's first iteration peeled, every queue loads one name
    d = ROOT / "examples" / "loss" / "cross_entropy_loss"
    text = _lower((d / "kernel.dsl").read_text(), d, default_passes()).final.text
    assert re.search(r"buffer qfirst\d+: vecin f32\[_n\d+\] \* 2", text)
    loaded: dict[str, set] = {}
    for target, queue in re.findall(r"(\w+) = load\(.*out=(q\w+)\)", text):
        loaded.setdefault(queue, set()).add(target)
    assert all(len(names) == 1 for names in loaded.values()), loaded
    first = re.search(r"(_first\d+) = (_pf\d+)\n", text)
    assert first
    peeled = text[text.index("for j in range(0, minimum(0 + T, C), T):"):]
    assert peeled.splitlines()[1].strip() == f"v = {first.group(1)}" and "free(v)" not in peeled.split("free(")[0]
    rest = peeled[peeled.index(f"free({first.group(1)})"):]
    assert rest.splitlines()[1].strip() == "for j in range(0 + T, C, T):"


def test_a_read_is_not_moved_past_a_copy_into_its_buffer():
    from ascendcraft.lowering_passes.prefetch import _sink_reads
    body = parse("kernel k(x: gm f32[N]) -> (y: gm f32[N]):\n"
                 "    for i in parallel(1):\n"
                 "        _v0 = load(x[0], out=q)\n"
                 "        a = GetValue(_v0)\n"
                 "        free(_v0)\n"
                 "        _t0 = load(x[0:8], out=w)\n"
                 "        _t1 = load(x[8:16], out=q)\n"
                 "        b = a + 1.0\n", "k.dsl").body[0].body
    order = [getattr(s, "target", None) or s.name for s in _sink_reads(list(body))]
    assert order == ["_v0", "_t0", "a", "_v0", "_t1", "b"]   # stops before q is used again


_PICK_BY_INDEX_TILE = """
kernel pick(x: gm f32[B, C], t: gm i64[B]) -> (y: gm f32[B]):
    const TB = 16
    for c in parallel(CORES):
        r0 = c * B // CORES
        r1 = (c + 1) * B // CORES
        for b0 in range(r0, r1, TB):
            idx = load(t[b0:b0 + TB])
            for b in range(b0, minimum(b0 + TB, r1)):
                picked = load(x[b, idx[b - b0]])
                s = sum(load(x[b, :]))
                store(y[b], s - picked)
"""

_PICK_OP = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x, t):
        return x.sum(dim=1) - x.gather(1, t[:, None])[:, 0]

B = 203
C = 37

def get_inputs():
    return [torch.randn(B, C), torch.randint(0, C, (B,))]

def get_init_inputs():
    return []
"""


def test_a_load_indexed_by_an_element_of_a_tile_is_not_prefetched(tmp_path):
    # one iteration ahead, idx[b + 1 - b0] is past the end of the chunk's index tile: found when a
    # kernel that check passed failed in prefetch (index 86 out of range for an axis of extent 86)
    from compiled import compile_verified
    compile_verified(tmp_path, _PICK_BY_INDEX_TILE, _PICK_OP, trials=2)


def _verified(tmp_path, kernel: str, op: str, prefetched: bool):
    """compile_verified with the time modeled; with ``prefetched``, a loop of it loads one iteration ahead."""
    from compiled import compile_verified
    k = compile_verified(tmp_path, kernel, op, trials=2, model_time=True)
    if prefetched:
        prefetch = next(p for p in k.report["passes"] if p["name"] == "prefetch")
        assert any("one iteration ahead" in n for n in prefetch["notes"])
    return k


_ROW_SUMS_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return x.sum(dim=1) ** 2
B = 96
N = 8192
def get_inputs():
    return [torch.randn(B, N)]
def get_init_inputs():
    return []
"""


def test_a_cores_last_iteration_prefetches_nothing(tmp_path):
    # two rows per core: prefetching "the next row" on a core's last iteration read the first row of
    # the next core's share, 50 % more HBM bytes than the kernel needs; now that region is empty
    kernel = """
kernel rowsum(x: gm f32[B, N]) -> (y: gm f32[B]):
    for b in parallel(B):
        s = sum(load(x[b, :]))
        store(y[b], s * s)
"""
    k = _verified(tmp_path, kernel, _ROW_SUMS_OP, prefetched=True)
    assert k.report["modeled"]["gm_bytes"] == 96 * 8192 * 4 + 96 * 4      # each byte once, no more (was 4,686,208)


def test_buffer_colouring_is_networkx_greedy_largest_first_without_the_quadratic_graph():
    """bufferize.colour_intervals gives what greedy_color(largest_first) gives on the interference
    graph (overlapping live ranges, different dtypes, pairs kept apart), built here edge by edge."""
    import random

    import networkx as nx

    from ascendcraft.lowering_passes.colouring import colour_intervals

    def by_networkx(iv, dtype, apart):
        g = nx.Graph()
        g.add_nodes_from(iv)
        names = list(iv)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                if iv[a][0] < iv[b][1] and iv[b][0] < iv[a][1] or dtype[a] != dtype[b]:
                    g.add_edge(a, b)
        g.add_edges_from(apart)
        return nx.greedy_color(g, strategy="largest_first")

    rng = random.Random(0)
    for _ in range(2000):
        names = [f"t{i}" for i in range(rng.randint(1, 14))]
        iv = {}
        for n in names:
            start = rng.randint(0, 12)
            iv[n] = [start, start + rng.randint(0, 5)]
        dtype = {n: rng.choice(["f32", "f32", "bool", "f16"]) for n in names}
        apart = [(rng.choice(names), rng.choice(names)) for _ in range(rng.randint(0, 3))]
        assert colour_intervals(iv, dtype, apart) == by_networkx(iv, dtype, apart), (iv, dtype, apart)


def test_notes_name_loops_by_line_and_by_the_writers_variable_only():
    """A pass's fresh loop variables (the collapsed loop of kh and kw, a partition's f0) mean
    nothing to the reader: a note gives the loop's line, and its variable where the writer chose it."""
    from ascendcraft.lowering_passes.base import PassContext, loop_name
    from ascendcraft.dsl.parser import parse
    k = parse("kernel k(x: gm f32[N]) -> (y: gm f32[N]):\n"
              "    for i in parallel(N):\n"
              "        for j in range(0, 1, 1):\n"
              "            store(y[i], load(x[i]))\n")
    inner = k.body[0].body[0]
    ctx = PassContext(None, None, source_names=frozenset({"i", "j", "x", "y"}))
    assert loop_name(inner, ctx) == "the loop at line 3 over j"
    from dataclasses import replace
    assert loop_name(replace(inner, var="_khkw0"), ctx) == "the loop at line 3"


_BOOL_AND_OP = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return a & b


N = 3
C = 37
W = 300


def get_inputs():
    return [torch.randint(0, 2, (N, C, W), dtype=torch.bool), torch.randint(0, 2, (1, C, 1), dtype=torch.bool)]


def get_init_inputs():
    return []
"""


def test_a_broadcast_and_of_bool_bytes_stays_in_f16(tmp_path):
    # bool bytes & a [CB, 1] column: their 0/1 values multiplied as f16 and cast back to bytes (no f32
    # copies, compare or select: the UB a tile needs fell from 12 bytes an element to 5)
    from compiled import compile_verified
    kernel = """
kernel logic_and(a: gm bool[N, C, W], b: gm bool[1, C, 1]) -> (y: gm bool[N, C, W]):
    const CB = maximum(1, minimum(C, 4096 // W))
    for n, cb in parallel(N, cdiv(C, CB)):
        c = cb * CB
        m = load(b[0, c:c + CB, :])
        store(y[n, c:c + CB, :], load(a[n, c:c + CB, :]) & m)
"""
    k = compile_verified(tmp_path, kernel, _BOOL_AND_OP, trials=2)
    text = k.lowered.run.final.text
    assert "MulColVec" in text and "f32" not in text.split("for core0")[1] and "Compare" not in text


_SUFFIX_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return torch.flip(torch.cumsum(torch.flip(x, [1]), 1), [1])
B = 24
N = 5000
def get_inputs():
    return [torch.randn(B, N)]
def get_init_inputs():
    return []
"""


def test_a_loop_counting_down_from_a_short_tile_prefetches(tmp_path):
    # the first tile a loop counting down takes is the row's short tail: the prefetched tile's type
    # is joined with the loop's later, longer tiles (the check failed at the store); the loop was
    # not prefetched before (11,417 -> 6,403 us for cumsum_reverse at MultiKernelBench's shape)
    kernel = """
kernel suffix(x: gm f32[B, N]) -> (y: gm f32[B, N]):
    const T = 2048
    for b in parallel(B):
        carry = 0.0
        for j in range((cdiv(N, T) - 1) * T, -1, -T):
            t = load(x[b, j:j + T])
            store(y[b, j:j + T], cumsum(t, reverse=True) + carry)
            carry = carry + sum(t)
"""
    k = _verified(tmp_path, kernel, _SUFFIX_OP, prefetched=True)
    assert k.report["modeled"]["gm_bytes"] == 2 * 24 * 5000 * 4      # each byte read once and written once


_BLOCK_SUMS_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return x.reshape(x.shape[0] // 8, -1).sum(dim=1)
B = 96
N = 4096
def get_inputs():
    return [torch.randn(B, N)]
def get_init_inputs():
    return []
"""


def test_a_loop_counting_down_past_its_first_row_prefetches_nothing(tmp_path):
    # chunk 0's last step: the region one step down starts at row -2, which moved by the rows (as a
    # region counting up is) was the last chunk's rows 94 and 95, read from HBM and never used
    kernel = """
kernel blocksum(x: gm f32[B, N]) -> (y: gm f32[C]):
    const R = 8
    const T = 2
    for c in parallel(B // R):
        s = 0.0
        for r in range(c * R + R - T, c * R - 1, -T):
            s = s + sum(load(x[r:r + T, :]))
        store(y[c], s)
"""
    k = _verified(tmp_path, kernel, _BLOCK_SUMS_OP, prefetched=True)
    assert k.report["modeled"]["gm_bytes"] == 96 * 4096 * 4 + 12 * 4


_SHARE_SUMS_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return torch.stack([c.sum() for c in torch.split(x, 11)])
R = 53
C = 1100
def get_inputs():
    return [torch.randn(R, C)]
def get_init_inputs():
    return []
"""


def test_a_prefetched_slice_ending_at_a_minimum_keeps_its_end(tmp_path):
    # the next chunk r:minimum(r + RB, e) was prefetched as m:m + RB, which read past e into the next
    # core's share at a share's short last chunk: lower failed at prefetch (the program computed
    # something else) for a kernel check passed
    kernel = """
kernel share_sums(x: gm f32[R, C]) -> (y: gm f32[S]):
    const RB = 4
    const RS = 11
    for s in parallel(cdiv(R, RS)):
        e = minimum(s * RS + RS, R)
        acc = 0.0
        for r in range(s * RS, e, RB):
            acc = acc + sum(load(x[r:minimum(r + RB, e), :]))
        store(y[s], acc)
"""
    _verified(tmp_path, kernel, _SHARE_SUMS_OP, prefetched=True)


_ROW_DOTS_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, emb, ids, w):
        return (emb[ids] * w).sum(dim=1)
V = 13
D = 300
K = 90
def get_inputs():
    return [torch.randn(V, D), torch.randint(0, V, (K,)), torch.randn(K, D)]
def get_init_inputs():
    return []
"""


def test_an_inner_loop_with_two_prefetched_tiles_keeps_its_first_one_in_place(tmp_path):
    # the inner loop prefetches a row picked by an index (not movable further) and w's row (movable): w's
    # first tile was moved an outer iteration ahead for a peel that looks only at the loop's first tile,
    # and lower failed at prefetch (a name of no tile) for a kernel check passed
    kernel = """
kernel row_dots(emb: gm f32[V, D], ids: gm i64[K], w: gm f32[K, D]) -> (y: gm f32[K]):
    const T = 128
    for k in parallel(K):
        r = load(ids[k])
        s = 0.0
        for j in range(0, D, T):
            s = s + sum(load(emb[r, j:j + T]) * load(w[k, j:j + T]))
        store(y[k], s)
"""
    _verified(tmp_path, kernel, _ROW_DOTS_OP, prefetched=False)
