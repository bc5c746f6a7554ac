"""The import rules of docs/architecture.md ("Layers"): a module imports, at module level, only
its own layer and the layers upstream of it, and no module-level import cycle exists. Imports
inside functions (the catalog's hooks, which load the analysis or the report when they are
called) are the documented exception and are not counted."""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Iterator, Set

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "hpceval"

# Upstream first. A module's layer is its first package below hpceval (or the module itself).
LAYERS = (
    {"errors", "paths", "outfiles", "infiles", "areas", "levels", "quality", "fingerprint",
     "records", "strictjson", "cbuild", "buildvariants", "vcluster", "cpupeak", "specsheet",
     "__init__"},
    {"simulate"},                  # a simulated platform: what the launcher and plan read
    {"catalog"},
    {"trace"},
    {"store"},
    {"slurm"},
    {"launch"},
    {"runner"},
    {"analysis"},
    {"experiment"},
    {"report"},
    {"cli", "__main__"},
)


def layer(module: str) -> int:
    part = module.split(".")[1] if "." in module else "__init__"
    for i, names in enumerate(LAYERS):
        if part in names:
            return i
    raise AssertionError(f"{module}: in no layer of tests/test_layers.py (add its package)")


def modules() -> Dict[str, Path]:
    out = {}
    for f in PACKAGE.rglob("*.py"):
        parts = f.relative_to(ROOT).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    return out


def module_level_imports(module: str, path: Path) -> Iterator[str]:
    """hpceval modules imported by statements that run when the module is imported."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.parse(path.read_text()).body:
        for n in ast.walk(node) if isinstance(node, (ast.If, ast.Try)) else [node]:
            if isinstance(n, ast.Import):
                yield from (a.name for a in n.names if a.name.split(".")[0] == "hpceval")
            elif isinstance(n, ast.ImportFrom):
                if n.level:
                    base = package.split(".")[: len(package.split(".")) - n.level + 1]
                    target = ".".join(base + ([n.module] if n.module else []))
                else:
                    target = n.module or ""
                if target.split(".")[0] == "hpceval":
                    yield target
                    yield from (f"{target}.{a.name}" for a in n.names)


def graph() -> Dict[str, Set[str]]:
    mods = modules()
    return {m: {t for t in module_level_imports(m, p) if t in mods and t != m}
            for m, p in mods.items()}


def test_no_upward_import():
    upward = [f"{m} (layer {layer(m)}) imports {t} (layer {layer(t)})"
              for m, targets in graph().items() for t in sorted(targets) if layer(t) > layer(m)]
    assert not upward, "\n".join(upward)


def test_no_import_cycle():
    g = graph()
    state: Dict[str, int] = {}

    def visit(m: str, path: list) -> None:
        state[m] = 1
        for t in sorted(g[m]):
            if state.get(t) == 1 and not m.startswith(t + "."):   # a package's own __init__
                raise AssertionError("import cycle: " + " -> ".join(path + [m, t]))
            if t not in state:
                visit(t, path + [m])
        state[m] = 2
    for m in sorted(g):
        if m not in state:
            visit(m, [])
