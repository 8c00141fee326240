"""The docs cite only files that exist, and the README's examples run as written.

* Every repository path named in README.md and docs/*.md (in prose, backticks, links or code
  blocks: ``ascendcraft/...``, ``tests/...``, ``benchmarks/...``, ``examples/...``, ``docs/...``,
  ``.ci/...``) exists; ``<name>`` placeholders and
  ``*`` match any name. Relative links resolve from the doc's folder, and a ``#anchor`` to a
  markdown file names one of its headings. Paths inside generated output folders
  (``kernels_out/<op>/``, ``ascendc/<op>.cpp``, ``passes/``, ``project/``) never start with those
  prefixes, so they are not checked; external repositories are recognised by context (below).
* Every ```python block of the README runs, in a temporary folder that holds the repository's
  examples/ (```bash blocks and blocks with no language are shell or output: not run). The
  hand-written AscendC example among them is built with ``ascendcraft.sim.build_kernel`` and
  checked against NumPy.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
PREFIXES = ("ascendcraft/", "tests/", "benchmarks/", "examples/", "docs/",
            ".ci/")

# A paragraph (or table row) naming one of these is about that repository: its paths (asc-devkit's
# `docs/zh/api/...`, `impl/basic_api/...`) are not ours.
EXTERNAL_CONTEXT = ("asc-devkit",)

# Cited paths that are not in the checkout on purpose, each with its reason.
ALLOWED = {
    # the package data of an installed wheel: pyproject.toml packages docs/ and examples/ under these names
    "ascendcraft/data/docs/dsl.md": "docs/dsl.md as installed in a wheel",
    "ascendcraft/data/examples/": "examples/ as installed in a wheel",
}

_PATH = re.compile(r"(?<![\w./~$-])((?:" + "|".join(re.escape(p) for p in PREFIXES) + r")[\w./<>*-]*)")
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _lines(doc: Path):
    yield from enumerate(doc.read_text(encoding="utf-8").splitlines(), 1)


def _exists(path: str, base: Path) -> bool:
    """The path, with <placeholders> and * as wildcards, names something under ``base``."""
    path = path.rstrip("/") or "."
    pattern = re.sub(r"<[^<>/]*>", "*", path)
    if "*" in pattern:
        return any(base.glob(pattern))
    return (base / pattern).exists()


def _slug(heading: str) -> str:
    """GitHub's anchor for a markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(doc: Path) -> set[str]:
    out, fenced = set(), False
    for _, line in _lines(doc):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (m := re.match(r"#{1,6}\s+(.*)", line)):
            out.add(_slug(m.group(1)))
    return out


def _paragraphs(doc: Path):
    """(line number, line, the text of its paragraph) for every line of ``doc``."""
    lines = list(_lines(doc))
    start = 0
    for i in range(len(lines) + 1):
        if i == len(lines) or not lines[i][1].strip():
            text = "\n".join(line for _, line in lines[start:i])
            for n, line in lines[start:i]:
                yield n, line, text
            start = i + 1


def cited_paths():
    """(doc, line number, path as cited, folder it is relative to, whether its paragraph is about an
    external repository) for every citation."""
    for doc in DOCS:
        for n, line, paragraph in _paragraphs(doc):
            context = line if line.lstrip().startswith("|") else paragraph   # a table row stands alone
            external = any(name in context for name in EXTERNAL_CONTEXT)
            for m in _PATH.finditer(line):
                yield doc, n, m.group(1).rstrip(".,:;"), REPO, external
            for m in _LINK.finditer(line):
                target = m.group(1)
                if re.match(r"[a-z]+:", target) or target.startswith("#"):
                    continue            # a URL, or an anchor in the same file
                yield doc, n, target, doc.parent, external


def test_the_scan_sees_the_citations():
    found = {c for _, _, c, _, _ in cited_paths()}
    assert {"docs/simulator.md#timeline", "ascendcraft/sim/cost.py", "ascendcraft/lowering_passes/assist.py"} <= found
    assert len(found) > 50


def test_cited_repository_paths_exist():
    missing = []
    for doc, n, cited, base, external in cited_paths():
        path, _, anchor = cited.partition("#")
        if path in ALLOWED:
            continue
        where = f"{os.path.relpath(doc, REPO)}:{n}: {cited}"
        if not _exists(path, base):
            if not external:      # a path of the repository the paragraph names is that repository's
                missing.append(where)
        elif anchor and path.endswith(".md") and anchor not in _anchors(base / path):
            missing.append(where + " (no such heading)")
    assert not missing, "docs cite paths that are not in the repository:\n" + "\n".join(missing)


def test_the_allow_list_is_still_needed():
    cited = {c.partition("#")[0] for _, _, c, _, _ in cited_paths()}
    assert set(ALLOWED) <= cited, "remove allow-list entries no doc cites any more"
    assert not any((REPO / p).exists() for p in ALLOWED), "an allowed path exists now: remove it from ALLOWED"


# --------------------------------------------------------------------------- README code blocks

def code_blocks(doc: Path) -> list[tuple[str, int, str]]:
    """(language, first line, code) of every fenced block."""
    blocks, lang, start, body = [], None, 0, []
    for n, line in _lines(doc):
        if lang is None and line.startswith("```"):
            lang, start, body = line[3:].strip().lower(), n + 1, []
        elif lang is not None and line.startswith("```"):
            blocks.append((lang, start, "\n".join(body) + "\n"))
            lang = None
        elif lang is not None:
            body.append(line)
    return blocks


README_PYTHON = [(start, code) for lang, start, code in code_blocks(REPO / "README.md") if lang == "python"]


@pytest.fixture
def examples_dir(tmp_path, monkeypatch):
    """A fresh folder with the repository's examples/, as the README's reader has after a clone."""
    (tmp_path / "examples").symlink_to(REPO / "examples", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_readme_has_python_examples():
    assert len(README_PYTHON) >= 3
    assert any("build_kernel(" in code for _, code in README_PYTHON)


@pytest.mark.parametrize("start,code", README_PYTHON, ids=[f"README.md:{s}" for s, _ in README_PYTHON])
def test_readme_python_block_runs(start, code, examples_dir):
    namespace = {"__name__": "__readme__"}
    exec(compile(code, f"README.md:{start}", "exec"), namespace)
    if "build_kernel(" in code:          # the hand-written AscendC kernel: built by g++, and right
        import numpy as np
        res, x, y = namespace["res"], namespace["x"], namespace["y"]
        assert res.ok, res.diagnostics
        assert not res.diagnostics and np.allclose(res.outputs[2], x + y)
        assert res.cost.time_us > 0
    if "ascendcraft.compile(" in code:
        assert namespace["k"].report["modeled"]["time_us"] > 0
        assert (examples_dir / "kernels_out" / "softmax" / "ascendc").is_dir()
    if "check_kernel(" in code:
        assert namespace["result"].passed


def test_readme_cpp_blocks_compile():
    """A ```cpp block in the README is a complete kernel the simulator builds."""
    from ascendcraft.sim import build_kernel
    for lang, start, code in code_blocks(REPO / "README.md"):
        if lang in ("cpp", "c++"):
            name = re.search(r"__global__\s+__aicore__\s+void\s+(\w+)", code)
            assert name, f"README.md:{start}: a C++ block without a kernel entry"
            build_kernel(code, name.group(1))
