"""Each area's share of a --budget, kept while the run goes. The plan gave every area
(communication, kernels, proxies, memory, nas) a share and fitted its launches to it
(hpceval/catalog/budget.py); on a machine slower than the estimates one area can overrun it.
A launch whose estimate would reach into the time the later areas were planned to need is left
out, and the run goes on with the next area: every area gets measured, the overrunning one with
fewer launches. Time an area leaves unused passes to those after it, and what the last leaves
to the launches passed over, in order, where it holds them (runner/run.py, launch_all). A launch under way is never
cut at its area's end, only at the budget's (Session._limit).

Found on the virtual cluster's two-node study (--budget 30s, MPICH): the communication area
took 2-4x its estimates and the run stopped before hydro, the study's curve against processors."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from hpceval.catalog import BENCHMARKS, LaunchSpec
from hpceval.catalog.estimate import estimate_s
from hpceval.runner.jobtime import listed


def area_ends(areas: Sequence[Dict[str, Any]], deadline: Optional[float]) -> Dict[str, float]:
    """{area: the time (as `deadline`, time.monotonic()) after which its launches may not end}:
    the budget's end less the estimates of the areas planned after it. Empty without a budget."""
    if deadline is None:
        return {}
    ends: Dict[str, float] = {}
    later = 0.0
    for area in reversed(areas):
        ends[area["area"]] = deadline - later
        later += float(area["estimate_s"])
    return ends


def area_of(spec: LaunchSpec) -> Optional[str]:
    bench = BENCHMARKS.get(spec.benchmark)
    return bench.area if bench is not None else None


def over_share(spec: LaunchSpec, rest: Sequence[LaunchSpec], ends: Dict[str, float],
               now: float) -> bool:
    """Whether `spec`, started at `now`, would end past its area's end while a later area's
    launches (in `rest`) still wait: the last area runs to the budget's end."""
    area = area_of(spec)
    if area not in ends or all(area_of(s) == area for s in rest):
        return False
    return now + estimate_s(spec) > ends[area]


def shares_spent(passed: List[LaunchSpec]) -> str:
    """The run's reason when launches were left out for their areas' shares."""
    areas = " and ".join(dict.fromkeys(str(area_of(s)) for s in passed))
    return f"the --budget's share of {areas} was spent (slower than estimated); {listed(passed)}"
