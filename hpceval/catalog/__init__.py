"""What exists: benchmarks, their parameters and default sweeps, and suites."""
from hpceval.catalog import benchmarks as _benchmarks  # noqa: F401  (registers)
from hpceval.catalog import suites as _suites  # noqa: F401  (registers)
from hpceval.catalog.params import Param, format_size, parse_size
from hpceval.catalog.registry import (BENCHMARKS, SUITES, Benchmark, LaunchSpec, PlanContext,
                                      Suite, resolve_targets)
from hpceval.catalog.plan import plan_targets

__all__ = ["BENCHMARKS", "SUITES", "Benchmark", "LaunchSpec", "Param", "PlanContext", "Suite",
           "format_size", "parse_size", "plan_targets", "resolve_targets"]
