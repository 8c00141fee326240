"""The verification policy against kernels that cheat or are subtly wrong, and correct kernels
whose float32 reference is the inaccurate side (docs/verification.md).

Every op file here draws its inputs the way benchmark tasks often do (torch.rand, ones): on
the op's own draw alone each cheat below would pass.
"""
from pathlib import Path

import numpy as np
import pytest
import torch

from ascendcraft import distributions as D
from ascendcraft.errors import UserError
from ascendcraft.checking import check_kernel
from ascendcraft.task import load_task
from ascendcraft.verify import make_draws

DATA = Path(__file__).parent / "data" / "policy"


def op(name: str) -> str:
    return str(DATA / f"{name}.py")


def rows(body: str, signature: str = "x: gm f32[B, N]", out: str = "y: gm f32[B, N]") -> str:
    """A kernel with one parallel loop over rows; ``body`` uses ``b`` and ``t = load(x[b, :])``."""
    return (f"kernel k({signature}) -> ({out}):\n"
            f"    for b in parallel(B):\n"
            f"        t = load(x[b, :])\n"
            + "".join(f"        {line}\n" for line in body.splitlines()))


IDENTITY = rows("store(y[b, :], t)")
LEAKY = "store(y[b, :], where(t >= 0.0, t, t * negative_slope))"

# (op, kernel, what makes it wrong) -- each passes on the op's own draw alone
CHEATS = {
    "identity as relu": ("relu_rand", IDENTITY),
    "identity as hardtanh": ("hardtanh_rand", IDENTITY),
    "leaky_relu without its sign branch": ("leaky_rand", rows("store(y[b, :], relu(t))")),
    "leaky_relu with the default slope, not the op's": (
        "leaky_rand", rows(LEAKY.replace("negative_slope", "slope"), "x: gm f32[B, N], slope: f32 = 0.01")),
    "zeros for a product that underflows": (
        "prod_rows", rows("store(y[b], 0.0)", out="y: gm f32[B]")),
    "a constant for a normalised output": ("normalize_ones", rows("store(y[b, :], t * 0.0 + 1.0 / N)")),
    "half of the output written": ("relu_rand", rows("store(y[b, 0:N // 2], relu(t[0:N // 2]))")),
    "a shape hard-coded as a constant": (
        "relu_rand", "kernel k(x: gm f32[B, N]) -> (y: gm f32[B, N]):\n"
                     "    for b in parallel(19):\n"
                     "        store(y[b, 0:1037], relu(load(x[b, 0:1037])))\n"),
}

CORRECT = {
    "relu": ("relu_rand", rows("store(y[b, :], relu(t))")),
    "hardtanh": ("hardtanh_rand", rows("store(y[b, :], clamp(t, -1.0, 1.0))")),
    "leaky_relu": ("leaky_rand", rows(LEAKY, "x: gm f32[B, N], negative_slope: f32 = 0.01")),
    "prod": ("prod_rows", rows("store(y[b], prod(t))", out="y: gm f32[B]")),
    "normalize": ("normalize_ones", rows("store(y[b, :], t / sum(t))")),
}


@pytest.mark.parametrize("name", sorted(CHEATS))
def test_cheat_is_rejected(name):
    task, kernel = CHEATS[name]
    try:
        result = check_kernel(kernel, op(task))
    except UserError as err:          # e.g. the hard-coded shape running off the second shapes
        assert "second verification shapes" in err.message, err.message
        return
    assert not result.passed, result.summary()
    text = result.summary()
    assert "FAIL" in text.splitlines()[0]


@pytest.mark.parametrize("name", sorted(CHEATS))
def test_cheat_passes_the_op_draw_alone(name):
    """The table is honest: on the op's own first draw, at the op's own shape, each cheat passes."""
    task, kernel = CHEATS[name]
    if name in ("half of the output written",):
        pytest.skip("wrong on every draw: kept as the poison check's case")
    result = check_kernel(kernel, op(task), trials=1, inputs="op", other_shapes=False)
    assert result.report.trials[0].passed, result.report.summary()


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_kernel_passes(name):
    task, kernel = CORRECT[name]
    result = check_kernel(kernel, op(task))
    assert result.passed, result.summary()
    assert result.second is not None and result.second.report.passed


def test_degenerate_op_draw_is_no_evidence_and_redrawn():
    task, kernel = CORRECT["prod"]
    result = check_kernel(kernel, op(task))
    trial0 = result.report.trials[0]
    assert trial0.distribution == "op" and trial0.outputs[0].degenerate == "is 0 everywhere"
    assert any(not t.outputs[0].degenerate for t in result.report.trials[1:])


def test_a_constant_output_is_evidence_once_draws_give_it_another_constant():
    """A fill's output is constant by the op's nature: the draw that gives it another value than an
    earlier draw's is evidence (no kernel writing one fixed value matches both); the same constant
    again, or a first constant, is not."""
    import torch

    from ascendcraft.evidence import why_no_evidence
    three, two = torch.full((4, 4), 3.0), torch.full((4, 4), 2.0)
    assert why_no_evidence(three, []) == "is 3 everywhere"
    assert why_no_evidence(three, [(0, three.clone())]) == "is 3 everywhere"
    assert why_no_evidence(three, [(0, two)]) == ""


def test_only_degenerate_draws_are_not_verifiable():
    """With the op's own draws only, a product that underflows is never evidence: NOT VERIFIABLE,
    for the cheat and the correct kernel alike, never PASS."""
    for kernel in (CHEATS["zeros for a product that underflows"][1], CORRECT["prod"][1]):
        result = check_kernel(kernel, op("prod_rows"), inputs="op")
        assert not result.passed
        assert result.report.verdict == "NOT VERIFIABLE", result.report.summary()
        assert "is 0 everywhere" in result.report.unverifiable
        assert result.report.to_json()["verdict"] == "NOT VERIFIABLE"


FROBENIUS = """\
kernel frob(x: gm f32[B, N]) -> (y: gm f32[B, N]):
    const T = 8192
    scratch part: f32[B]
    for b in parallel(B):
        acc = 0.0
        for j in range(0, N, T):
            t = load(x[b, j:j + T])
            acc = acc + sum(t * t)
        store(part[b], acc)
    norm = sqrt(sum(load(part)))
    for b in parallel(B):
        for j in range(0, N, T):
            store(y[b, j:j + T], load(x[b, j:j + T]) / norm)
"""


def test_imprecise_float32_reference_does_not_fail_a_correct_kernel():
    result = check_kernel(FROBENIUS, op("frobenius"), trials=2, max_bytes=128 << 20)
    assert result.passed, result.summary()
    trial0 = result.report.trials[0]
    assert trial0.reference == "float64"
    assert trial0.outputs[0].ref_error > 2e-5     # torch's own float32 result is the inaccurate side
    assert "reference f32 error" in result.summary()


def test_long_signed_scan_is_judged_by_what_float32_can_do():
    """A correct chunked float32 cumsum misses atol=1e-4 near the zero crossings of signed prefix
    sums (torch's CPU cumsum accumulates in double); the slack admits it, not a wrong scan."""
    ex = Path(__file__).parents[1] / "examples" / "math" / "cumsum"
    kernel = (ex / "kernel.dsl").read_text()
    assert check_kernel(kernel, str(ex / "op.py")).passed
    wrong = kernel.replace("carry = carry + sum(t)", "carry = carry + sum(t) * 1.0001")
    assert not check_kernel(wrong, str(ex / "op.py")).passed


# --------------------------------------------------------------------------- the distributions

def test_structured_inputs_keep_their_structure():
    task = load_task(op("structured"))
    draws = make_draws(task.shapes(), trials=5, seed=3)
    assert [d.label for d in draws][:2] == ["op", "signed"]
    op_logits, op_index, *_ = draws[0].inputs
    for d in draws[1:]:
        logits, index, mask, sign, probs, scale = d.inputs
        assert index.dtype == torch.int64 and int(index.min()) >= 3 and int(index.max()) <= 67 - 6
        assert mask.dtype == torch.bool and 0 < int(mask.sum()) < mask.numel()
        assert set(torch.unique(sign).tolist()) <= {-1.0, 1.0}
        assert bool((probs >= 0).all()) and torch.allclose(probs.sum(1), torch.ones(9), atol=1e-5)
        assert scale == 2.5
    assert bool((draws[1].inputs[0] < 0).any())        # the plain float input is signed


def test_distributions_are_deterministic_per_seed():
    task = load_task(op("structured"))
    a = make_draws(task.shapes(), trials=3, seed=5)
    b = make_draws(task.shapes(), trials=3, seed=5)
    c = make_draws(task.shapes(), trials=3, seed=6)
    for x, y in zip(a[2].inputs[:5], b[2].inputs[:5]):
        assert torch.equal(x, y)
    assert not torch.equal(a[2].inputs[0], c[2].inputs[0])


def test_domain_fallback_is_used_and_reported():
    task = load_task(op("log_rand"))
    draws = make_draws(task.shapes(), trials=3)
    signed = draws[1]
    assert signed.label == "signed, non-negative"
    assert any("NaN/Inf" in n for n in signed.notes)
    assert bool((signed.inputs[0] >= 0).all())
    result = check_kernel(rows("store(y[b, :], log(t))"), op("log_rand"), trials=3)
    assert result.passed, result.summary()
    assert "signed, non-negative" in result.summary()
    trial = result.to_json()["verification"]["trials"][1]
    assert trial["distribution"] == "signed, non-negative" and trial["notes"]


def test_every_trial_names_its_distribution_in_text_and_json():
    result = check_kernel(CORRECT["relu"][1], op("relu_rand"))
    labels = [t["distribution"] for t in result.to_json()["verification"]["trials"]]
    assert labels == ["op", *D.DERIVED]
    for i, label in enumerate(labels):
        assert f"trial {i} (seed {i}, {label})" in result.summary()


def test_inputs_op_restricts_to_the_op_draw():
    result = check_kernel(IDENTITY, op("relu_rand"), inputs="op")
    assert result.passed      # MultiKernelBench's behaviour, on request: the cheat is not caught
    assert {t["distribution"] for t in result.to_json()["verification"]["trials"]} == {"op"}
    assert result.report.inputs == "op"


def test_analysis_of_the_op_draw():
    s = D.analyse([torch.rand(4, 40), torch.randint(0, 5, (4,)), torch.rand(4, 40) > 0.5,
                   torch.softmax(torch.randn(4, 40), 1), torch.randint(0, 2, (4, 40)).float(), 3.0])
    assert [x.kind for x in s] == ["float", "int", "bool", "prob", "set", "other"]
    assert s[3].axis == 1 and s[4].values == (0.0, 1.0)


def test_nan_and_inf_of_the_op_draw_stay_in_place_while_the_rest_is_redrawn(tmp_path):
    """A tensor the op drew with -inf (a mask) or NaN in it was kept whole in every derived trial, so
    those trials repeated the op's draw and a right kernel was 'not verifiable'."""
    x = torch.randn(6, 40)
    x[1, :] = float("-inf")
    x[2, 5] = float("nan")
    s = D.analyse([x])[0]
    assert s.kind == "float" and s.nonfinite
    drawn = D.derived_inputs([x], [s], "signed", "as drawn", seed=1)[0]
    assert torch.equal(torch.isnan(drawn), torch.isnan(x)) and bool((drawn[1] == float("-inf")).all())
    finite = torch.isfinite(x)
    assert bool(torch.isfinite(drawn[finite]).all()) and not torch.equal(drawn[finite], x[finite])
    (tmp_path / "op.py").write_text(
        "import torch\nimport torch.nn as nn\n"
        "class Model(nn.Module):\n    def forward(self, x):\n        return torch.argmax(x, dim=1)\n"
        "B = 6\nN = 40\n"
        "def get_inputs():\n    x = torch.randn(B, N)\n    x[1, :] = float('-inf')\n    return [x]\n"
        "def get_init_inputs():\n    return []\n")
    kernel = rows("store(y[b], argmax(t))", out="y: gm i64[B]")
    result = check_kernel(kernel, tmp_path / "op.py", trials=3)
    assert result.passed, result.summary()
    assert "no evidence" not in result.summary()


def test_float_slack_never_lowers_the_tolerance():
    from ascendcraft.verify import TOLERANCES, compare, float_slack
    truth = torch.linspace(-1, 1, 101, dtype=torch.float64)
    got = (truth + 5e-5).float().numpy()
    tight = float_slack(torch.zeros(101, dtype=torch.float64), truth, "f32")
    assert compare(got, truth, 0, dtype="f32", slack=tight).passed
    wrong = (truth + 3 * TOLERANCES["f32"][0]).float().numpy()
    assert not compare(wrong, truth, 0, dtype="f32", slack=tight).passed
    assert np.all(tight[0] == 0)


def test_an_op_without_a_float64_run_is_judged_by_its_float32_result_and_says_so():
    result = check_kernel(CORRECT["relu"][1], op("f32_only"), trials=2)
    assert result.passed, result.summary()
    ref = result.report.trials[0].reference
    assert ref.startswith("float32 reference (no float64 run: AssertionError: float32 only")
    assert "judged against float32 reference" in result.summary()


def test_an_output_that_ignores_the_inputs_is_not_verifiable():
    kernel = rows("store(y[b, :], iota(N, f32) * 0.5)")
    result = check_kernel(kernel, op("ignores_input"), trials=3)
    assert result.report.verdict == "NOT VERIFIABLE", result.report.summary()
    assert "equals trial 0's although it is another draw" in result.report.unverifiable


# --------------------------------------------------------------------------- values real models produce

SOFTMAX = "m = max(t)\ne = exp(t - m)\nstore(y[b, :], e / sum(e))"
ATTENTION_EXAMPLE = Path(__file__).parents[1] / "examples" / "attention" / "scaled_dot_product_attention"
ATTENTION = (ATTENTION_EXAMPLE / "kernel.dsl").read_text()

# (op, kernel, the draw that exposes it): right on the op's draw and on the four tame derived draws
DRAW_BUGS = {
    "relu as (x + abs(x)) * 0.5, NaN at -inf": ("relu_rand", rows("store(y[b, :], (t + abs(t)) * 0.5)"), "specials"),
    "gated relu as (x + abs(x)) * 0.5 * g, NaN at -inf in x": (
        "relu_gate", rows("store(y[b, :], (t + abs(t)) * 0.5 * load(g[b, :]))", "x: gm f32[B, N], g: gm f32[B, N]"),
        "specials"),
    "relu below a fixed threshold only": (
        "relu_rand", rows("store(y[b, :], where(t < 4096.0, relu(t), 0.0))"), "scaled"),
    "softmax whose row max is kept in f16": (
        "softmax_randn", rows(SOFTMAX.replace("max(t)", "cast(cast(max(t), f16), f32)")), "scaled"),
    "attention whose all -inf score row is NaN where torch's is 0": (
        "attention_narrow", ATTENTION.replace("exp(t - where(mx > -inf, mx, 0.0))", "exp(t - mx)")
                                     .replace("e / where(se > 0.0, se, 1.0)", "e / se"), "specials"),
}


@pytest.mark.parametrize("name", sorted(DRAW_BUGS))
def test_a_kernel_right_only_on_tame_values_fails_on_the_draw_real_values_take(name):
    task, kernel, dist = DRAW_BUGS[name]
    result = check_kernel(kernel, op(task))
    assert not result.passed, result.summary()
    trials = result.report.trials
    assert all(t.passed for t in trials[:5]), result.summary()
    assert [t.distribution.split(",")[0] for t in trials if not t.passed][0] == dist, result.summary()


@pytest.mark.parametrize("task, kernel", [("relu_rand", rows("store(y[b, :], relu(t))")),
                                          ("relu_gate", rows("store(y[b, :], relu(t) * load(g[b, :]))",
                                                             "x: gm f32[B, N], g: gm f32[B, N]")),
                                          ("softmax_randn", rows(SOFTMAX)),
                                          ("attention_narrow", ATTENTION)])
def test_the_kernels_without_their_bug_pass_every_draw(task, kernel):
    result = check_kernel(kernel, op(task))
    assert result.passed, result.summary()
    assert [t.distribution.split(",")[0] for t in result.report.trials] == ["op", *D.DERIVED]
    assert "no evidence" not in result.summary()


def test_the_scaled_draw_gives_rows_of_different_scales_within_the_dtype():
    for dtype, top, spread in ((torch.float32, 1e31, 1e6), (torch.float16, 65504.0, 1e4)):
        x = torch.rand(64, 50).to(dtype)
        drawn = D.derived_inputs([x], D.analyse([x]), "scaled", "as drawn", seed=4)[0]
        assert drawn.dtype == dtype and bool(torch.isfinite(drawn).all())
        peaks = drawn.double().abs().amax(1)
        assert float(peaks.max() / peaks.min()) > spread and float(peaks.max()) <= top
        mild = D.derived_inputs([x], D.analyse([x]), "scaled", "moderate", seed=4)[0]
        assert float(mild.double().abs().max()) < 1e6


def test_the_specials_draw_keeps_the_op_draw_and_structure_around_its_specials():
    x, idx, mask = torch.rand(40, 30), torch.randint(0, 7, (40,)), torch.rand(40, 30) > 0.5
    structures = D.analyse([x, idx, mask])
    drawn, didx, dmask = D.derived_inputs([x, idx, mask], structures, "specials", "as drawn", seed=2)
    special = ~torch.isfinite(drawn) | (drawn == 0) | (drawn.abs() < torch.finfo(torch.float32).tiny)
    rows = special.any(1)
    assert 1 <= int(rows.sum()) < 40 and torch.equal(drawn[~special], x[~special])
    assert bool((drawn == float("inf")).any()) and bool((drawn == float("-inf")).any())
    assert not bool(torch.isnan(drawn).any())     # NaN: see distributions.SPECIAL_VARIANTS
    assert not bool((drawn[rows] == 0).any())     # no zeros beside infinities (0 * inf is a NaN)
    assert torch.equal(didx, idx) and torch.equal(dmask, mask)
    finite = D.derived_inputs([x], structures[:1], "specials", "zeros and subnormals", seed=2)[0]
    assert bool(torch.isfinite(finite).all()) and not torch.equal(finite, x)


def test_with_two_float_inputs_the_infinities_go_into_the_first_only():
    """Infinities from two inputs meet inside the op (inf - inf in a dot product): only the first
    float input gets them, the others the finite specials."""
    a, b = torch.rand(40, 30), torch.rand(40, 30)
    da, db = D.derived_inputs([a, b], D.analyse([a, b]), "specials", "as drawn", seed=3)
    assert bool(torch.isinf(da).any()) and bool(torch.isfinite(db).all())
    assert not torch.equal(db, b) and bool((db.abs() < torch.finfo(torch.float32).tiny).any())   # subnormals
    assert D.variants("specials", D.analyse([a, b])) == list(D.SPECIAL_VARIANTS)


def test_a_correct_attention_passes_every_draw():
    """Large logits make a softmax's exponent magnify every rounding of its scores: the tolerance
    follows the op's own sensitivity on the draw (verify.input_sensitivity), not a fixed one."""
    result = check_kernel(ATTENTION, str(ATTENTION_EXAMPLE / "op.py"))
    assert result.passed, result.summary()
    assert [t.distribution.split(",")[0] for t in result.report.trials] == ["op", *D.DERIVED]


def test_the_sensitivity_is_large_where_the_op_magnifies_rounding():
    from ascendcraft.verify import input_sensitivity
    shapes = load_task(op("softmax_randn")).shapes()
    tame = [torch.randn(13, 517)]
    wild = [tame[0] + 1e5]             # the same softmax, each logit rounded at 1e5
    s_tame, = input_sensitivity(shapes, tame, seed=0, eps=2.0 ** -23)
    s_wild, = input_sensitivity(shapes, wild, seed=0, eps=2.0 ** -23)
    assert float(s_tame.max()) < 1e-6 and float(s_wild.max()) > 1e-4


def test_in_a_specials_trial_an_element_torchs_kernels_disagree_on_is_not_judged():
    """A query with -inf against keys that make one score NaN (0 x -inf) and the rest -inf: torch's
    fused CPU attention skips the NaN in its row max and gives 0, its math kernel gives NaN; what
    PyTorch gives there is the kernel it picks, so the judged reference is NaN (not judged)."""
    from ascendcraft.verify import _references
    shapes = load_task(op("attention_narrow")).shapes()
    inf = float("inf")
    q = torch.tensor([[[[-inf, 1.0], [1.0, 2.0]]]])
    k = torch.tensor([[[[1.0, 0.0], [1.0, 0.0], [0.0, 0.0]]]])
    v = torch.ones(1, 1, 3, 2)
    native, truth, _ = _references(shapes, [q, k, v])
    assert torch.equal(native[0][0, 0, 0], torch.zeros(2)) and torch.equal(truth[0][0, 0, 0], torch.zeros(2).double())
    _, truth, _ = _references(shapes, [q, k, v], nonfinite_unjudged=True)
    assert bool(torch.isnan(truth[0][0, 0, 0]).all()) and torch.allclose(truth[0][0, 0, 1], torch.ones(2).double())


def test_in_a_specials_trial_a_non_finite_reference_may_be_anything_and_the_rest_is_judged():
    """inf - inf inside an op makes NaN, which the 910B's Max/Min may turn into a number (hardtanh of
    a group norm); an attention weight that underflows to 0 before it meets an inf of V makes NaN
    where torch's tiny weight made -inf: not the kernel's choice. Every finite element still counts."""
    from ascendcraft.verify import compare
    ref = torch.tensor([float("nan"), 1.0, float("-inf"), 0.0], dtype=torch.float64)
    got = np.array([-2.0, 1.0, np.nan, 0.0], np.float32)
    assert not compare(got, ref, 0, dtype="f32").passed
    assert compare(got, ref, 0, dtype="f32", nonfinite_unjudged=True).passed
    for wrong in ([np.nan, np.nan, -np.inf, 0.0], [np.nan, 1.0, -np.inf, np.inf], [0.0, 1.5, -np.inf, 0.0]):
        assert not compare(np.array(wrong, np.float32), ref, 0, dtype="f32", nonfinite_unjudged=True).passed


# --------------------------------------------------------------------------- real extents

WIDE_SOFTMAX = (DATA / "softmax_wide.dsl").read_text()   # tiles of 8192 over rows of 48 x 8192
# the last tile counted twice when the row is a multiple of the tile: never at the odd reduced dims
TWICE = WIDE_SOFTMAX.replace("""            s = s + sum(exp(load(x[b, j:j + T]) - m))
""", """            s = s + sum(exp(load(x[b, j:j + T]) - m))
        s = s + where(N % T == 0, sum(exp(load(x[b, N - T:N]) - m)), 0.0)
""")


def test_a_kernel_wrong_only_at_a_real_extent_fails_there_and_says_so():
    result = check_kernel(TWICE, op("softmax_wide"), max_bytes=8 << 20, trials=2)
    assert not result.passed
    assert result.report.passed and result.second.report.passed    # the odd reduced dims miss it
    failed = [o for o in result.extents if not o.report.passed]
    assert [o.label for o in failed] == ["dim"] and failed[0].shapes.input_specs[0].shape == (1, 48 * 8192)
    assert "real extent of dim:" in result.summary()
    data = result.to_json()["real_extent_verifications"]
    assert {e["constant"]: e["verification"]["verdict"] for e in data}["dim"] == "FAIL"


def test_the_right_kernel_passes_every_real_extent_and_the_unfit_ones_are_named():
    result = check_kernel(WIDE_SOFTMAX, op("softmax_wide"), max_bytes=8 << 20, trials=2)
    assert result.passed, result.summary()
    assert sorted(o.label for o in result.extents if o.modulus == 1) == ["batch_size", "dim"]
    assert not result.extents_skipped
    # and where every shrunk constant has its real residue modulo lcm(8192, 48 cores) = 24576
    residues, = [o for o in result.extents if o.modulus > 1]
    assert residues.modulus == 24576 and residues.shapes.input_specs[0].shape[1] % 24576 == 0
    small = check_kernel(WIDE_SOFTMAX, op("softmax_wide"), max_bytes=2 << 20, trials=2)
    assert small.passed and [n for n, _ in small.extents_skipped] == ["dim"]
    assert "real extent of dim not verified: softmax_wide.py cannot be reduced below" in small.summary()
    assert "verified instead at dim=245760, which has the real value's residue modulo 24576" in small.summary()


def test_a_real_extent_too_big_to_verify_is_stood_in_for_by_its_residue():
    """At 2 MiB no row of 48 x 8192 fits; 10 x 24576 columns end on a whole tile as the real row
    does, and the kernel that counts that tile twice fails there."""
    result = check_kernel(TWICE, op("softmax_wide"), max_bytes=2 << 20, trials=2)
    assert not result.passed and result.report.passed
    failed = [o for o in result.extents if not o.report.passed]
    assert [o.title() for o in failed] == ["residue of dim modulo 24576 (dim=245760 as 393216)"]
    entry = [e for e in result.to_json()["real_extent_verifications"] if e["verification"]["verdict"] == "FAIL"]
    assert entry[0]["modulus"] == 24576 and entry[0]["values"] == {"dim": 245760}
