"""What exists: benchmarks, their parameters and default sweeps, and suites.

Each benchmark is one declaration (hpceval/catalog/registry.py: `Benchmark`) in a module named
`bench_<name>.py` in this package; every such module is imported here, so adding one needs no
edit elsewhere. A directory named in HPCEVAL_CATALOG_PATH (several separated by ':') adds its
`*.py` modules the same way, from outside the package (but `views_*.py`: those are views,
hpceval/views). What a benchmark shows (card rows, headline rows, figures) is not here: it is
in its views (hpceval/views), above the analysis (docs/architecture.md)."""
from typing import Any, List

from hpceval.catalog.params import Param, format_size, parse_size
from hpceval.catalog.registry import (BENCHMARKS, SUITES, Benchmark, LaunchSpec, PlanContext,
                                      Suite, finish_suites, register_benchmark, register_suite,
                                      resolve_targets)
from hpceval.catalog.plan import plan_targets
from hpceval.discover import BROKEN, PATH_ENV, import_prefixed, outside_modules

# Every benchmark's catalog module: the package's with its suites, then those from outside (a
# name declared twice is refused there, not taken from the package), then the study of them all.
AREA_MODULES: List[Any] = import_prefixed(__name__, __path__, ("bench_",))
from hpceval.catalog import suites as _suites  # noqa: E402  (suites refer to the benchmarks)
AREA_MODULES += outside_modules(lambda name: not name.startswith("views_"))
# the suites' entries their members joined from their own modules; a suite nobody declared is
# reported as a module that did not load (hpceval/cli)
BROKEN.extend(finish_suites())
register_suite(_suites.study_suite())

__all__ = ["AREA_MODULES", "BENCHMARKS", "PATH_ENV", "SUITES", "Benchmark", "LaunchSpec",
           "Param", "PlanContext", "Suite", "format_size", "parse_size", "plan_targets",
           "register_benchmark", "register_suite", "resolve_targets"]
