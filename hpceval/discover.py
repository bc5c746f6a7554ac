"""How registries are filled without a central list: a package imports its modules of a given
prefix by name (catalog `bench_*`, views `rows_*`/`figures_*`/`tables_*`, experiment `kind_*`),
and each registers what it holds. Registered items carry an `order`: a registry is kept sorted
by it, registration order among equals, so that areas discovered in any order still show in the
order the machine card (EV7 Table 5.1) and the report lay them out (docs/architecture.md)."""
from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, List, Tuple

DEFAULT_ORDER = 50       # after every built-in area; see docs/architecture.md for the others
# Directories of modules from outside the package (several separated by ':'): a benchmark's
# catalog module and, named views_*.py, its views.
PATH_ENV = "HPCEVAL_CATALOG_PATH"
# Outside modules that failed to load, as "file: reason": the command line refuses to run with
# them (one line, exit 2); they are found at import time, before it can say so.
BROKEN: List[str] = []


def place(registry: List[Any], item: Any) -> Any:
    """Insert `item` after every entry of the same or a lower `order`; returns it."""
    i = len(registry)
    while i and registry[i - 1].order > item.order:
        i -= 1
    registry.insert(i, item)
    return item


def import_prefixed(package: str, path: Iterable[str], prefixes: Tuple[str, ...]) -> List[Any]:
    """Import the modules of `package` whose names start with one of `prefixes`, by name."""
    names = sorted(m.name for m in pkgutil.iter_modules(path) if m.name.startswith(prefixes))
    return [importlib.import_module(f"{package}.{name}") for name in names]


def outside_modules(wanted: Callable[[str], bool]) -> List[Any]:
    """The modules of the directories in HPCEVAL_CATALOG_PATH whose file names `wanted`
    accepts, imported once each (a directory that does not exist is passed over, as in PATH)."""
    out = []
    for d in filter(None, os.environ.get(PATH_ENV, "").split(":")):
        for f in sorted(Path(d).glob("*.py")) if Path(d).is_dir() else ():
            if f.name.startswith("_") or not wanted(f.name):
                continue
            name = f"hpceval_area_{f.stem}"
            if name not in sys.modules and not _load(name, f):
                continue
            out.append(sys.modules[name])
    return out


def _load(name: str, f: Path) -> bool:
    """Import file f as module `name`; False (and a line in BROKEN) when it fails."""
    spec = importlib.util.spec_from_file_location(name, f)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        return True
    except Exception as exc:      # anything a user's module does wrong: its reason, one line
        del sys.modules[name]
        BROKEN.append(f"{f}: {type(exc).__name__}: {exc}")
        return False
