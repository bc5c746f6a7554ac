"""binding: the same launches with ranks bound consecutively (cores 0,1,2..), to every other
core, or as the MPI runtime does by default; the launcher spells each policy for its MPI."""
from __future__ import annotations

from dataclasses import replace
from typing import List

from hpceval.catalog import LaunchSpec
from hpceval.errors import UsageError
from hpceval.experiment.registry import Experiment, Setup, names, plan_benchmark, register_experiment
from hpceval.launch.base import POLICIES


def _expand(variant: str, setup: Setup) -> List[List[LaunchSpec]]:
    out = []
    for spec in plan_benchmark(setup):
        threads = spec.env.get("OMP_NUM_THREADS", "1")
        if threads != "1":
            # a rank bound to one CPU would stack its threads on it; OpenMP binding is not here
            raise UsageError(f"binding: '{spec.label}' runs {threads} OpenMP threads per rank; "
                             "binding policies are for MPI ranks (--set threads=1)")
        setup.launcher.cpu_list(variant, spec.nranks)   # refused now when it cannot be spelled
        out.append([replace(spec, bind=variant, label=f"{spec.label} bind={variant}")])
    return out


register_experiment(Experiment(
    "binding", "ranks bound to consecutive cores, every other core, or the MPI's default",
    "binding", lambda ctx: "consecutive,alternating,default",
    lambda text, ctx: names(text, POLICIES, "binding"), _expand))
