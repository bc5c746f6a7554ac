"""What exists: benchmarks, their parameters and default sweeps, and suites.

Each area registers its benchmarks and suites in a module named `bench_<area>.py` in this
package; every such module is imported here, so adding an area needs no edit elsewhere. A
directory named in HPCEVAL_CATALOG_PATH (several separated by ':') adds its `*.py` modules the
same way, from outside the package. An area's catalog module may also name its machine-card
rows, headline rows and report figures, through hooks (hpceval/areas.py,
docs/architecture.md)."""
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any, List

from hpceval.areas import import_prefixed
from hpceval.catalog.params import Param, format_size, parse_size
from hpceval.catalog.registry import (BENCHMARKS, SUITES, Benchmark, LaunchSpec, PlanContext,
                                      Suite, register_benchmark, register_suite, resolve_targets)
from hpceval.catalog.plan import plan_targets

PATH_ENV = "HPCEVAL_CATALOG_PATH"


def _outside_modules() -> List[Any]:
    """The modules of the directories in HPCEVAL_CATALOG_PATH, imported (a directory that does
    not exist is passed over, as in PATH)."""
    out = []
    for d in filter(None, os.environ.get(PATH_ENV, "").split(":")):
        for f in sorted(Path(d).glob("*.py")) if Path(d).is_dir() else ():
            if f.name.startswith("_"):
                continue
            name = f"hpceval_area_{f.stem}"
            spec = importlib.util.spec_from_file_location(name, f)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            out.append(module)
    return out


# Every area's catalog module, in the order their hooks are asked (hpceval/areas.py).
AREA_MODULES = import_prefixed(__name__, __path__, ("bench_",)) + _outside_modules()
from hpceval.catalog import suites as _suites  # noqa: E402,F401  (suites refer to the benchmarks)

__all__ = ["AREA_MODULES", "BENCHMARKS", "SUITES", "Benchmark", "LaunchSpec", "Param",
           "PlanContext", "Suite", "format_size", "parse_size", "plan_targets",
           "register_benchmark", "register_suite", "resolve_targets"]
