"""The AscendC kernel is verified on the backend at every shape set the check verified: the second
one, the ones that keep one size constant at its real value and the one of the real residues
(docs/verification.md, "Shapes")."""
from pathlib import Path

from ascendcraft.lower import lower
from ascendcraft.results import report_markdown

OP = Path(__file__).parents[1] / "data" / "policy" / "softmax_wide.py"
KERNEL = (OP.parent / "softmax_wide.dsl").read_text()


def test_the_backend_runs_at_each_real_extent():
    lowered = lower(KERNEL, str(OP), backend="sim", trials=2, max_bytes=8 << 20, model_time=False)
    data = lowered.to_json()
    runs = data["backend_real_extent_verifications"]
    extents = {e["constant"]: e["verification"] for e in runs if e["modulus"] is None}
    assert set(extents) == {"batch_size", "dim"}
    assert all(e["verification"]["verdict"] == "PASS" for e in runs)
    residues, = [e for e in runs if e["modulus"] is not None]     # every shrunk constant at its real residue
    assert residues["modulus"] == 24576 and residues["values"]["dim"] % 24576 == 0
    assert extents["dim"]["shapes"]["inputs"][0]["shape"] == [1, 48 * 8192]
    assert data["backend_second_shapes_verification"]["verdict"] == "PASS"
    assert "real extent of dim: PASS (2/2 trials)" in lowered.summary()
    assert "Real extent of dim: " in report_markdown(lowered)
