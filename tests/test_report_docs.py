"""docs/lowering.md "The report" explains every field of report.json and every section of report.md.

A bundled example is lowered on the simulator (one trial: the keys, not the numbers, matter) and
written as ``lower`` writes it; every key of its report.json (top level, and one level down in
``modeled``, ``timeline``, ``source_check`` and the verification reports), every ``##`` section
of its report.md and every key of a failed run's report.json must be named in that section, as
```key``` or as a bold section title, so the docs cannot drift from the code.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "activation" / "softmax"


def report_section() -> str:
    text = (REPO / "docs" / "lowering.md").read_text(encoding="utf-8")
    m = re.search(r"^## The report\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert m, 'docs/lowering.md has no "## The report" section'
    return m.group(1)


def named(key: str, section: str) -> bool:
    return f"`{key}`" in section


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    from ascendcraft.lower import lower
    from ascendcraft.results import write_output
    result = lower(EXAMPLE / "kernel.dsl", EXAMPLE / "op.py", backend="sim", trials=1, model_time=True)
    out = write_output(result, tmp_path_factory.mktemp("report") / "softmax")
    return json.loads((out / "report.json").read_text()), (out / "report.md").read_text()


def test_every_top_level_key_of_report_json_is_explained(written):
    report, _ = written
    section = report_section()
    missing = [k for k in report if not named(k, section)]
    assert not missing, f"report.json keys not explained in docs/lowering.md (The report): {missing}"


def test_the_example_fills_the_sections_the_test_relies_on(written):
    report, _ = written
    for key in ("source_check", "backend_verification", "modeled", "timeline"):
        assert isinstance(report[key], dict), key
    assert report["passes"] and report["timings_s"]


def test_nested_keys_are_explained(written):
    report, _ = written
    section = report_section()
    verification = report["backend_verification"]
    trial = verification["trials"][0]
    groups = {
        "source_check": report["source_check"],
        "source_check.real_shapes": report["source_check"]["real_shapes"],
        "modeled": report["modeled"],
        "modeled.pipe_busy_us": report["modeled"]["pipe_busy_us"],
        "timeline": report["timeline"],
        "timeline.files": report["timeline"]["files"],
        "timings_s": report["timings_s"],
        "passes[0]": report["passes"][0],
        "verification": verification,
        "verification.shapes": verification["shapes"],
        "verification.tolerances.f32": verification["tolerances"]["f32"],
        "trial": trial,
        "trial.outputs[0]": trial["outputs"][0],
    }
    missing = [f"{where}.{k}" for where, d in groups.items() for k in d if not named(k, section)]
    assert not missing, f"report.json keys not explained in docs/lowering.md (The report): {missing}"


def test_every_section_of_report_md_is_explained(written):
    _, md = written
    section = report_section()
    headings = re.findall(r"^## (.+)$", md, re.M)
    assert {"Checks", "Timeline", "Files"} <= set(headings)
    missing = [h for h in headings if f"**{h}**" not in section]
    assert not missing, f"report.md sections not explained in docs/lowering.md (The report): {missing}"
    for line in ("Verification shapes", "Second verification shapes"):
        if line + ":" in md:
            assert f"**{line}**" in section


def test_every_file_report_md_lists_is_explained(written):
    _, md = written
    section = report_section()
    files = md.split("## Files", 1)[1]
    names = [n for entry in re.findall(r"^- `([^`]+)`", files, re.M) for n in entry.split(", ")]
    assert "report.json" in names and "timeline.png" in names
    missing = [n for n in names if not named(n, section)]
    assert not missing, f"files of report.md not explained in docs/lowering.md: {missing}"


def test_a_failed_run_report_is_explained(tmp_path):
    from ascendcraft.results import write_failure
    from ascendcraft.passes import PassError
    err = PassError("select", "no rule lowers this statement", before="kernel k() {}\n", after=None)
    out = write_failure(err, tmp_path / "k")
    report = json.loads((out / "report.json").read_text())
    section = report_section()
    missing = [k for k in report if not named(k, section)]
    assert not missing, f"failed-run report.json keys not explained: {missing}"
