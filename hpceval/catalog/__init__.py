"""What exists: benchmarks, their parameters and default sweeps, and suites.

Each area registers its benchmarks and suites in a module named `bench_<area>.py` in this
package; every such module is imported here, so adding an area needs no edit elsewhere."""
import importlib
import pkgutil

from hpceval.catalog.params import Param, format_size, parse_size
from hpceval.catalog.registry import (BENCHMARKS, SUITES, Benchmark, LaunchSpec, PlanContext,
                                      Suite, register_benchmark, register_suite, resolve_targets)
from hpceval.catalog.plan import plan_targets

for _mod in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("bench_")):
    importlib.import_module(f"{__name__}.{_mod}")
from hpceval.catalog import suites as _suites  # noqa: E402,F401  (suites refer to the benchmarks)

__all__ = ["BENCHMARKS", "SUITES", "Benchmark", "LaunchSpec", "Param", "PlanContext", "Suite",
           "format_size", "parse_size", "plan_targets", "register_benchmark", "register_suite",
           "resolve_targets"]
