"""lower's timeline: timeline.json (Chrome trace) and timeline.png in the results folder, named
and embedded in report.md; without matplotlib the lowering still succeeds and says so."""
import json
import struct
import sys
from pathlib import Path

import pytest

from ascendcraft.lower import lower
from ascendcraft.results import write_output

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples" / "activation" / "leaky_relu"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def lowered():
    return lower(EX / "kernel.dsl", EX / "op.py", backend="sim", trials=1)


def test_lower_writes_and_embeds_the_timeline(lowered, tmp_path):
    pytest.importorskip("matplotlib")
    out = write_output(lowered, tmp_path / "leaky")
    png = (out / "timeline.png").read_bytes()
    assert png[:8] == PNG_MAGIC and png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    assert width > 600 and height > 200
    md = (out / "report.md").read_text()
    assert "## Timeline" in md and "![timeline](timeline.png)" in md
    assert "https://ui.perfetto.dev" in md and "chrome://tracing" in md
    files = md.split("## Files")[1]
    assert "- `timeline.json`:" in files and "- `timeline.png`:" in files
    report = json.loads((out / "report.json").read_text())
    assert report["timeline"]["files"] == {"json": "timeline.json", "png": "timeline.png"}
    assert report["timeline"]["records"] > 0 and report["timeline"]["dropped"] == 0

    doc = json.loads((out / "timeline.json").read_text())
    threads = {e["args"]["name"] for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"}
    assert {"core 0 / MTE2", "core 0 / V", "core 0 / MTE3"} <= threads
    xs = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["cat"] != "kernel"]
    assert xs
    op = lowered.spec.op_name
    src = (out / "ascendc" / f"{op}.cpp").read_text().splitlines()
    for e in xs[:50]:   # each event names its call and its line of the AscendC kernel in the folder
        file, line = e["args"]["line"].split(":")
        assert file == f"ascendc/{op}.cpp"
        assert src[int(line) - 1].strip() == e["args"]["code"]
        assert e["name"].split("::")[-1] in e["args"]["code"] or e["cat"] == "S"
    cost = lowered.cost
    assert min(e["ts"] for e in xs) >= cost.launch_us - 1e-6
    assert max(e["ts"] + e["dur"] for e in xs) <= cost.time_us + 1e-3


def test_without_matplotlib_lower_still_writes_the_trace(lowered, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)   # import matplotlib -> ImportError
    out = write_output(lowered, tmp_path / "leaky")
    assert (out / "timeline.json").is_file() and not (out / "timeline.png").exists()
    md = (out / "report.md").read_text()
    assert "the picture needs matplotlib" in md and "![timeline]" not in md
    files = md.split("## Files")[1]
    assert "`timeline.json`" in files and "`timeline.png`" not in files


def test_the_api_exposes_the_timeline(lowered):
    from ascendcraft.api import CompiledKernel
    k = CompiledKernel(lowered)
    assert k.timeline is lowered.timeline and len(k.timeline) > 0
    assert k.report["timeline"]["critical_core"] == k.timeline.critical_core()


def test_a_capped_trace_names_the_cores_it_holds(lowered, tmp_path, monkeypatch):
    import ascendcraft.results as L
    monkeypatch.setattr(L, "TIMELINE_EVENTS", 5)
    monkeypatch.setitem(sys.modules, "matplotlib", None)   # (the picture is not what is tested here)
    out = write_output(lowered, tmp_path / "leaky")
    doc = json.loads((out / "timeline.json").read_text())
    cores = len(lowered.timeline.cores())
    assert cores > 1 and len(doc["otherData"]["omitted_cores"]) == cores - 1
    assert f"It holds the 1 slowest of the {cores} cores" in (out / "report.md").read_text()
