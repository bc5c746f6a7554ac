"""The estimate of a launch's wall time, before it runs (the budget's fit, a run's limits,
the dry run): its start-up, which grows with the ranks (tree spawn and MPI_Init's
wire-up: fitted to this host's earlier real launches where the store holds a few, fit_startup,
else STARTUP_S + STARTUP_PER_RANK_S a rank), plus the measuring time its planner budgeted (every
point spending its whole budget: an upper bound, as converged points stop early)."""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from hpceval.catalog.common import TIMEOUT_FACTOR, planned_seconds, simulated_limit
from hpceval.catalog.registry import LaunchSpec, PlanContext

STARTUP_S = 1.0            # one launch of a few ranks here: 0.5-1.3 s (mpirun, 2 ranks)
STARTUP_PER_RANK_S = 1e-3  # wire-up grows with the ranks; 10,000 ranks: about 11 s a launch


def startup_s(nranks: int, base: Optional[float] = None) -> float:
    """A launch's start-up: `base` (one measured on this allocation, else STARTUP_S) plus the
    wire-up that grows with the ranks."""
    return (STARTUP_S if base is None else base) + STARTUP_PER_RANK_S * nranks


@dataclass(frozen=True)
class StartupFit:
    """A launch's start-up fitted to this host's earlier real launches (fit_startup)."""
    start_s: float
    per_rank_s: float
    launches: int
    rank_counts: int

    def startup_s(self, nranks: int) -> float:
        return self.start_s + self.per_rank_s * nranks

    def note(self) -> str:
        return (f"start-up {self.start_s:.2f} s + {self.per_rank_s * 1e3:.2f} ms a rank, fitted "
                f"to {self.launches} earlier launches here ({self.rank_counts} rank counts)")


MIN_FIT_LAUNCHES = 3       # fewer earlier launches: the model's STARTUP_S, STARTUP_PER_RANK_S


def fit_startup(rows: Sequence[Tuple[int, float, float, float]]) -> Optional[StartupFit]:
    """The start-up of this host's launches from earlier ones, rows (nranks, elapsed_s,
    estimate_s, startup_s): what each took beyond its planned measuring (elapsed - (estimate -
    startup)), its median per rank count (robust to a disturbed launch), then a line through
    those medians: the per-rank slope the median of their pairwise slopes (Theil-Sen; the
    model's STARTUP_PER_RANK_S with one rank count), the fixed part the median of what is left.
    Neither part below zero. None with fewer than MIN_FIT_LAUNCHES rows."""
    if len(rows) < MIN_FIT_LAUNCHES:
        return None
    by: Dict[int, List[float]] = {}
    for nranks, elapsed, estimate, startup in rows:
        by.setdefault(int(nranks), []).append(elapsed - (estimate - startup))
    med = sorted((n, statistics.median(r)) for n, r in by.items())
    slopes = [(m2 - m1) / (n2 - n1) for i, (n1, m1) in enumerate(med) for n2, m2 in med[i + 1:]]
    per_rank = max(statistics.median(slopes), 0.0) if slopes else STARTUP_PER_RANK_S
    start = max(statistics.median(m - per_rank * n for n, m in med), 0.0)
    return StartupFit(round(start, 4), round(per_rank, 7), len(rows), len(med))


def startup_note(ctx: PlanContext) -> str:
    """Which model a plan's launches were estimated by (a plan note)."""
    if ctx.sim_cost is not None:
        return ctx.sim_cost.note()
    if ctx.startup_fit is not None:
        return ctx.startup_fit.note()
    base = STARTUP_S if ctx.launch_s is None else ctx.launch_s
    return (f"start-up {base:.2f} s + {STARTUP_PER_RANK_S * 1e3:.2f} ms a rank, "
            + ("the default model" if ctx.launch_s is None else "measured on this allocation")
            + f" (fewer than {MIN_FIT_LAUNCHES} earlier launches here to fit)")


def stamp(specs: List[LaunchSpec], ctx: PlanContext) -> List[LaunchSpec]:
    """Each launch's start-up as this host's earlier launches make it (ctx.startup_fit), else
    as this allocation's (ctx.launch_s, measured) does; a simulated launch's start-up and
    measuring as SMPI's measured cost does (ctx.sim_cost), and its time limit raised to cover
    that cost (simulated_limit: every benchmark's, with or without a --budget)."""
    for s in specs:
        if ctx.sim_cost is None:
            s.startup_s = (ctx.startup_fit.startup_s(s.nranks) if ctx.startup_fit is not None
                           else startup_s(s.nranks, ctx.launch_s))
            continue
        s.startup_s = ctx.sim_cost.startup_s(s.nranks)
        simulated_limit(s, ctx)           # keeps the planned measuring as estimate_s first
        s.simulated_s = ctx.sim_cost.measure_s(s.benchmark, s.label, s.nranks,
                                               s.expected_results, measure_s(s), s.args)
    return specs


def spec_startup_s(spec: LaunchSpec) -> float:
    return spec.startup_s if spec.startup_s is not None else startup_s(spec.nranks)


def measure_s(spec: LaunchSpec) -> float:
    """The planner's expectation where it gave one, else the measuring time it budgeted."""
    return spec.estimate_s if spec.estimate_s is not None else planned_seconds(spec)


def estimate_s(spec: LaunchSpec) -> float:
    return spec_startup_s(spec) + (measure_s(spec) if spec.simulated_s is None
                                   else spec.simulated_s)


# Seconds a launch's own limit under a --budget allows past TIMEOUT_FACTOR x its estimate: a
# start-up slower than the model's (3-5 s measured against 1 s estimated on a loaded host).
OWN_LIMIT_SLACK_S = 2.0


def own_limit_s(spec: LaunchSpec) -> float:
    """A launch's own time limit under a --budget (Session._limit): TIMEOUT_FACTOR x its
    estimate (start-up, and a simulated launch's SMPI wall time: stamp), or x its start-up and
    the measuring its planner budgeted when that is more (a planner's typical expectation is
    below it), plus OWN_LIMIT_SLACK_S. Not the plan's TIMEOUT_FIXED_S allowance: under a
    budget one launch must not hold the run a minute past what it was planned for."""
    return TIMEOUT_FACTOR * max(estimate_s(spec), spec_startup_s(spec) + planned_seconds(spec)) \
        + OWN_LIMIT_SLACK_S


def total_s(specs: Sequence[LaunchSpec]) -> float:
    return sum(estimate_s(s) for s in specs)
