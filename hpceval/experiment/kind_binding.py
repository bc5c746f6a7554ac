"""binding: the same launches with ranks bound consecutively (cores 0,1,2..), to every other
core, or as the MPI runtime does by default; the launcher spells each policy for its MPI. A
launch of one rank with several OpenMP threads binds its threads instead, through the OpenMP
runtime: consecutive = OMP_PROC_BIND=close on cores, alternating = spread, none = false,
default = the runtime's own (the variables unset)."""
from __future__ import annotations

from dataclasses import replace
from typing import List

from hpceval.catalog import LaunchSpec
from hpceval.errors import UsageError
from hpceval.experiment.registry import Experiment, Setup, names, plan_benchmark, register_experiment
from hpceval.launch.base import POLICIES


OMP_BIND = {"consecutive": "close", "alternating": "spread", "none": "false"}


def _threads(spec: LaunchSpec, variant: str) -> LaunchSpec:
    """The OpenMP threads of a one-rank launch bound by the variant (the rank itself unbound,
    so its threads may use every CPU)."""
    if spec.nranks != 1:
        raise UsageError(f"binding: '{spec.label}' runs {spec.env['OMP_NUM_THREADS']} OpenMP "
                         f"threads on each of {spec.nranks} ranks: bind ranks (--set threads=1) "
                         "or threads (one rank)")
    env = {k: v for k, v in spec.env.items() if k not in ("OMP_PROC_BIND", "OMP_PLACES")}
    if variant in OMP_BIND:
        env.update(OMP_PROC_BIND=OMP_BIND[variant], OMP_PLACES="cores")
    return replace(spec, bind="none", env=env, label=f"{spec.label} threads bind={variant}")


def _expand(variant: str, setup: Setup) -> List[List[LaunchSpec]]:
    out = []
    for spec in plan_benchmark(setup):
        if spec.env.get("OMP_NUM_THREADS", "1") != "1":
            out.append([_threads(spec, variant)])
            continue
        setup.launcher.cpu_list(variant, spec.nranks)   # refused now when it cannot be spelled
        out.append([replace(spec, bind=variant, label=f"{spec.label} bind={variant}")])
    return out


register_experiment(Experiment(
    "binding", "ranks bound to consecutive cores, every other core, or the MPI's default",
    "binding", lambda ctx: "consecutive,alternating,default",
    lambda text, ctx: names(text, POLICIES, "binding"), _expand))
