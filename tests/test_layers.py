"""The import rules of docs/architecture.md ("Layers"): a module imports only its own layer and
the layers upstream of it, at module level and inside function bodies alike (an import deferred
into a function is still a dependency), and no import cycle exists. ALLOWED lists the upward
imports accepted anyway, each with its reason: none."""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Iterator, Set, Tuple

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "hpceval"

# Upstream first. A module's layer is its first package below hpceval (or the module itself).
LAYERS = (
    {"errors", "paths", "outfiles", "infiles", "discover", "levels", "quality", "records",
     "strictjson", "cbuild", "buildvariants", "vcluster", "cpupeak", "specsheet", "limits", "__init__"},
    {"simulate"},                  # a simulated platform: what the launcher and plan read
    {"fingerprint"},               # this machine's, or the simulated platform's
    {"catalog"},
    {"trace"},
    {"store"},
    {"slurm"},
    {"launch"},
    {"runner"},
    {"analysis"},
    {"views"},
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


# (importer, imported): upward imports accepted anyway, each with its reason. Empty: every
# dependency runs downstream.
ALLOWED: Set[Tuple[str, str]] = set()


def module_level_imports(module: str, path: Path) -> Iterator[str]:
    """hpceval modules imported by statements that run when the module is imported."""
    yield from _imports(module, path, deep=False)


def all_imports(module: str, path: Path) -> Iterator[str]:
    """hpceval modules imported anywhere in the module, function bodies too."""
    yield from _imports(module, path, deep=True)


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    """ast.walk, but not into `if TYPE_CHECKING:` (names for annotations: never imported)."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not (isinstance(child, ast.If) and getattr(child.test, "id", "") == "TYPE_CHECKING"):
            yield from _walk(child)


def _imports(module: str, path: Path, deep: bool) -> Iterator[str]:
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text())
    for node in [tree] if deep else tree.body:
        for n in _walk(node) if deep or isinstance(node, (ast.If, ast.Try)) else [node]:
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


def graph(deep: bool = False) -> Dict[str, Set[str]]:
    mods = modules()
    imports = all_imports if deep else module_level_imports
    return {m: {t for t in imports(m, p) if t in mods and t != m} for m, p in mods.items()}


def upward(g: Dict[str, Set[str]]) -> list:
    return [f"{m} (layer {layer(m)}) imports {t} (layer {layer(t)})"
            for m, targets in g.items() for t in sorted(targets)
            if layer(t) > layer(m) and (m, t) not in ALLOWED]


def test_no_upward_import_at_module_level():
    assert not upward(graph()), "\n".join(upward(graph()))


def test_no_upward_import_in_function_bodies():
    """A deferred import is a dependency all the same (the catalog once reached the report
    and the analysis through its hooks' bodies)."""
    assert not upward(graph(deep=True)), "\n".join(upward(graph(deep=True)))


def test_the_catalog_imports_neither_views_analysis_nor_report():
    low = {m: t for m, t in graph(deep=True).items() if m.startswith("hpceval.catalog")}
    above = [f"{m} imports {x}" for m, targets in low.items() for x in sorted(targets)
             if x.split(".")[1] in ("analysis", "views", "report", "experiment", "runner")]
    assert not above, "\n".join(above)


def test_the_checker_sees_an_import_in_a_function_body(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("import os\n\ndef hook():\n    from hpceval.report import render_report\n")
    assert list(module_level_imports("hpceval.catalog.m", f)) == []
    assert "hpceval.report" in set(all_imports("hpceval.catalog.m", f))


def test_no_import_cycle():
    g = graph(deep=True)
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
