"""A direct-launch reply (MultiKernelBench's ascendc_direct_launch JSON document) made from a test operator's folder."""
from __future__ import annotations

import json
from pathlib import Path

DIRECT = Path(__file__).resolve().parent / "direct"


def operator_files(name: str = "leaky") -> dict[str, str]:
    root = DIRECT / name
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def direct_reply(files: dict[str, str] | None = None, fenced: bool = True, **document) -> str:
    """The reply text: the files as ``sources`` (the test operator's when None) and the other keys as given."""
    files = operator_files() if files is None else files
    doc = {"name": "leaky", "build": {"type": "ascendc_direct_launch"}, "entry": {"model": "ModelNew.py::ModelNew"},
           **document, "sources": [{"path": p, "content": t} for p, t in files.items()]}
    text = json.dumps(doc, indent=1)
    return f"Here is the operator.\n```json\n{text}\n```\n" if fenced else text


def edited(path: str, old: str, new: str, files: dict[str, str] | None = None) -> dict[str, str]:
    files = dict(operator_files() if files is None else files)
    assert old in files[path], (path, old)
    files[path] = files[path].replace(old, new)
    return files
