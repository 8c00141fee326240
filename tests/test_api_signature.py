"""``ascendcraft.compile`` shows its signature: explicit keyword arguments with types and defaults
(no ``**options``), each documented in a docstring that ``help()`` renders."""
from __future__ import annotations

import inspect
import pydoc
import sys
from pathlib import Path

import ascendcraft
from ascendcraft import api

# What ascendcraft.compile accepted when it was ``compile(kernel, op, **options)`` forwarding to
# api.compile, with the defaults it had: the explicit signature must keep them all.
EXPECTED = {"chip": "910B2", "backend": "sim", "trials": None, "seed": 0, "max_bytes": 64 << 20,
            "model_time": False, "inputs": "adversarial", "precision": "ours", "progress": None}


def test_ascendcraft_compile_is_the_api_function():
    assert ascendcraft.compile is api.compile
    from ascendcraft import compile as imported
    assert imported is api.compile


def test_compile_has_no_var_keyword_and_every_parameter_is_typed():
    sig = inspect.signature(ascendcraft.compile)
    kinds = {p.kind for p in sig.parameters.values()}
    assert inspect.Parameter.VAR_KEYWORD not in kinds and inspect.Parameter.VAR_POSITIONAL not in kinds
    for p in sig.parameters.values():
        assert p.annotation is not inspect.Parameter.empty, f"{p.name} has no type"
    assert sig.return_annotation is not inspect.Parameter.empty


def test_compile_keeps_its_options_and_defaults():
    params = inspect.signature(ascendcraft.compile).parameters
    assert list(params)[:2] == ["kernel", "op"]
    for name in ("kernel", "op"):
        assert params[name].default is inspect.Parameter.empty
    keywords = {n: p.default for n, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert keywords == EXPECTED


def test_compile_options_are_lowers():
    """Every keyword compile takes is one of lower()'s, so it forwards each one unchanged."""
    from ascendcraft.lower import lower
    lower_params = inspect.signature(lower).parameters
    for name in EXPECTED:
        assert name in lower_params, name


def test_every_parameter_is_documented_in_the_docstring():
    doc = inspect.getdoc(ascendcraft.compile)
    assert doc and "Args:" in doc and "Returns:" in doc
    args = doc.split("Args:", 1)[1].split("Returns:", 1)[0]
    for name in inspect.signature(ascendcraft.compile).parameters:
        assert f"\n{name}: " in "\n" + "\n".join(line.strip() for line in args.splitlines()), \
            f"parameter {name} is not documented"


def test_help_renders_the_signature_and_docstring():
    text = pydoc.render_doc(ascendcraft.compile, renderer=pydoc.plaintext)
    assert "**options" not in text
    assert "model_time: 'bool' = False" in text
    assert "Check, lower, build and verify" in text


def test_import_ascendcraft_stays_light():
    """compile is imported on first use: a bare ``import ascendcraft`` does not load the API."""
    import subprocess
    code = "import sys, ascendcraft; print('ascendcraft.api' in sys.modules, 'numpy' in sys.modules)"
    repo = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=repo).stdout
    assert out.split() == ["False", "False"]
