"""sharing: J concurrent P-rank jobs filling the node (J x P = its CPUs) against one job on
every CPU, judged by the node's combined rate (the sum of the jobs' rates: simulated days per
day for barotropic and psst). Variants: 'one' (one job, ranks bound consecutively: the
baseline) and 'P:placement' with placement block (job j on CPUs jP..jP+P-1), interleaved
(job j on CPUs j, j+J, j+2J ...) or default (each job placed by its MPI, unaware of the others)."""
from __future__ import annotations

import os
from dataclasses import replace
from typing import List

from hpceval.catalog import LaunchSpec, PlanContext
from hpceval.errors import UsageError
from hpceval.experiment.registry import Experiment, Setup, plan_benchmark, register_experiment

PLACEMENTS = ("block", "interleaved", "default")


def _cpus() -> List[int]:
    return sorted(os.sched_getaffinity(0))


def _defaults(ctx: PlanContext) -> str:
    n = len(_cpus())
    return ",".join(["one"] + [f"{p}:{pl}" for p in range(1, n) if n % p == 0 for pl in PLACEMENTS])


def _parse(text: str, ctx: PlanContext) -> List[str]:
    n = len(_cpus())
    items = list(dict.fromkeys(w.strip() for w in text.split(",") if w.strip()))
    if not items:
        raise UsageError("--variants: empty list of sharing variants")
    for item in items:
        p, _, placement = item.partition(":")
        if item == "one":
            continue
        if not (p.isdigit() and placement in PLACEMENTS):
            raise UsageError(f"--variants: unknown sharing variant '{item}' (one, or P:placement "
                             f"with placement one of {', '.join(PLACEMENTS)})")
        if not 0 < int(p) < n or n % int(p):
            raise UsageError(f"--variants {item}: jobs of {p} ranks do not fill the {n} CPUs "
                             "here with two or more jobs (P must divide the CPUs and be fewer)")
    return items


def _bind(placement: str, job: int, p: int, cpus: List[int]) -> str:
    jobs = len(cpus) // p
    mine = cpus[job * p:(job + 1) * p] if placement == "block" else cpus[job::jobs][:p]
    return "default" if placement == "default" else "cpus:" + ",".join(map(str, mine))


def _expand(variant: str, setup: Setup) -> List[List[LaunchSpec]]:
    cpus = _cpus()
    if variant == "one":
        return [[replace(s, bind="consecutive", label=f"{s.label} one job")]
                for s in plan_benchmark(setup, nranks=len(cpus))]
    p, placement = int(variant.split(":")[0]), variant.split(":")[1]
    groups = []
    for s in plan_benchmark(setup, nranks=p):
        if s.nranks != p:
            raise UsageError(f"sharing: '{s.label}' runs {s.nranks} ranks, not the {p} of its job")
        jobs = [replace(s, bind=_bind(placement, j, p, cpus),
                        label=f"{s.label} job {j + 1}/{len(cpus) // p} {placement}")
                for j in range(len(cpus) // p)]
        for job in jobs:
            setup.launcher.cpu_list(job.bind, p)
        groups.append(jobs)
    return groups


register_experiment(Experiment(
    "sharing", "J concurrent P-rank jobs filling the node against one job: combined rate",
    "placement", _defaults, _parse, _expand, combine=True))
