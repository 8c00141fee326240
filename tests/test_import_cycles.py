"""The package's modules import each other without cycles (module-level imports; an import inside
a function runs late and is how a module reaches one that depends on it)."""
from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("ascendcraft",)


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, module: str, known: set[str]) -> set[str]:
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.parse(path.read_text()).body:          # module level only
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            names = [f"{base}.{a.name}" for a in node.names] + [base]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            # a module's own packages are imported before it (their __init__ importing it is no cycle)
            if name and name != module and not module.startswith(name + "."):
                out.add(name)
    return out


def test_no_import_cycles():
    files = {_module(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    graph = nx.DiGraph()
    for module, path in files.items():
        graph.add_node(module)
        for target in _imports(path, module, set(files)):
            graph.add_edge(module, target)
    cycles = list(nx.simple_cycles(graph))
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c + [c[0]]) for c in cycles[:5])
