"""copies: k = 1, 2, 4 ... all cores simultaneous copies of a serial kernel, each copy its own
one-rank launch bound to a core of its own (copy i on the i-th CPU), started together. This is
generic: any benchmark whose plan is one-rank launches (column, sst with copies=1, stream
with threads=1, hydro at one rank) can be copied; sst's own copies=N (one N-rank launch whose
ranks start each sample at a barrier) stays as it was."""
from __future__ import annotations

import os
from dataclasses import replace
from typing import List

from hpceval.catalog import BENCHMARKS, LaunchSpec, PlanContext
from hpceval.catalog.common import counts
from hpceval.errors import UsageError
from hpceval.experiment.registry import Experiment, Setup, plan_benchmark, register_experiment

# The benchmark's own parameters that would make it more than one process or thread.
_SERIAL = (("copies", "1"), ("threads", "1"), ("ranks", "1"))


def _cpus() -> List[int]:
    return sorted(os.sched_getaffinity(0))


def _parse(text: str, ctx: PlanContext) -> List[str]:
    # 'sweep': 1, 2, 4 ... and all cores; 'max': all cores
    return [str(k) for k in counts(text, ctx.cores, "variants", "copy count", sweep=True)]


def _expand(variant: str, setup: Setup) -> List[List[LaunchSpec]]:
    k, cpus = int(variant), _cpus()
    if k > len(cpus) and not setup.oversubscribe:
        raise UsageError(f"copies {k}: more copies than the {len(cpus)} CPUs here "
                         "(--oversubscribe runs them anyway, timings disturbed)")
    bench = BENCHMARKS[setup.benchmark]
    extra = tuple(f"{n}={v}" for n, v in _SERIAL if bench.has_param(n))
    try:
        specs = plan_benchmark(setup, extra, nranks=1)
    except UsageError as exc:
        raise UsageError(f"copies: {setup.benchmark} cannot run as one rank: {exc}") from None
    wide = [s for s in specs if s.nranks != 1]
    if wide:
        raise UsageError(f"copies: {setup.benchmark} is not a serial kernel here "
                         f"('{wide[0].label}' has {wide[0].nranks} ranks)")
    return [[replace(s, label=f"{s.label} copy {i + 1}/{k}",
                     bind=f"cpus:{cpus[i]}" if k <= len(cpus) else "none")
             for i in range(k)] for s in specs]


register_experiment(Experiment(
    "copies", "k simultaneous copies of a serial kernel, one per core: per-copy rate vs k",
    "copies", lambda ctx: "sweep", _parse, _expand, ordered=True))
