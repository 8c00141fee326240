"""What the wheel installs: one top-level package, ``ascendcraft``. The repository keeps its
``dsl_grammar/`` and ``lowering_passes/`` folders, mapped inside the package by pyproject.toml, so
site-packages gains no name another project may also use."""
from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:                                   # pragma: no cover - Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
SETUPTOOLS = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_installed_package_is_inside_ascendcraft():
    outside = [p for p in SETUPTOOLS["packages"] if p.split(".")[0] != "ascendcraft"]
    assert not outside, f"top-level packages in site-packages: {outside}"


def test_every_source_folder_of_the_repository_is_installed():
    """A top-level folder holding Python modules is a package the wheel carries (under its mapped name)."""
    mapped = {folder: name for name, folder in SETUPTOOLS["package-dir"].items()}
    folders = {p.parent.name for p in REPO.glob("*/__init__.py")}
    installed = set(SETUPTOOLS["packages"])
    for folder in folders:
        assert mapped.get(folder, folder) in installed, f"{folder}/ is not installed"


def test_the_mapped_packages_import_under_ascendcraft():
    from ascendcraft.dsl_grammar import grammar_text
    from ascendcraft.lowering_passes import base

    assert "start" in grammar_text()
    assert Path(base.__file__).parent == REPO / "lowering_passes"
