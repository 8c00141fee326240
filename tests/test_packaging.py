"""What the wheel installs: one top-level package, ``ascendcraft`` (the grammar and the lowering
passes are its subpackages), so site-packages gains no name another project may also use."""
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


def test_every_package_of_the_source_tree_is_installed():
    """A folder of Python modules is a package the wheel carries; none sits beside ``ascendcraft/``."""
    installed = set(SETUPTOOLS["packages"])
    for init in (REPO / "ascendcraft").rglob("__init__.py"):
        name = ".".join(init.parent.relative_to(REPO).parts)
        assert name in installed, f"{name} is not installed"
    assert not [p.parent.name for p in REPO.glob("*/__init__.py") if p.parent.name != "ascendcraft"]


def test_the_subpackages_import_under_ascendcraft():
    from ascendcraft.dsl_grammar import grammar_text
    from ascendcraft.lowering_passes import base

    assert "start" in grammar_text()
    assert Path(base.__file__).parent == REPO / "ascendcraft" / "lowering_passes"
