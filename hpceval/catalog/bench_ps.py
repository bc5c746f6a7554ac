"""ps: PS, the SP2 study's parallel network simulator (docs/nas_ps.md), a sibling of phold
sharing its C library: a 2-D torus of routers (32 x 32 in the study) with cut-through flow
control, simulated for 40,000 cycles on processes arranged as a logical 2-D torus, each
talking to its four neighbours; offered load as a percentage of the bisection's theoretical
bandwidth, 5% to 90%; execution time and messages against load (the study's Fig. 8), every
parallel run checked against a sequential one."""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Dict, List, Tuple

from hpceval.catalog.bench_phold import number_list
from hpceval.catalog.common import (expected_seconds, harness_bytes, launch_timeout,
                                    parallel_seconds, rank_counts, ranks_sweep, repetition_args)
from hpceval.catalog.ladder import RankRule
from hpceval.catalog.nas_common import FEWER_REPS
from hpceval.catalog.options import options
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, register_benchmark,
                                      register_study)
from hpceval.errors import UsageError

METRICS = 2                     # run_time, messages
TYPICAL_ROUTER_CYCLE_S = 6e-8   # this machine's: 1.2 s (5% load) .. 5 s (90%) for 32x32 x 40k
SLOW_ROUTER_CYCLE_S = 5e-7      # a pessimistic one (time limit)
MAX_WORK = 1e11                 # the binary's bound on router-cycles a point
PACKET_BYTES = 24               # a packet, queued or on the wire (lib/ps_net.h)
ROUTER_BYTES = 4 * 88           # per router: four queues, link clocks and arrival slots


def _grids(x: int, y: int, n: int) -> List[Tuple[int, int]]:
    """Every px x py = n with px | x and py | y (px from x's divisors: cheap at any n)."""
    return [(a, n // a) for a in range(1, min(x, n) + 1)
            if x % a == 0 and n % a == 0 and y % (n // a) == 0]


def process_grid(x: int, y: int, n: int) -> Tuple[int, int]:
    """The binary's logical torus of n processes: the most nearly square px x py with px | x
    and py | y (px <= py on a tie)."""
    grids = _grids(x, y, n)
    if not grids:
        raise UsageError(f"ps: {n} processes do not tile {x}x{y} routers as a PX x PY torus "
                         f"(PX | {x}, PY | {y})")
    return min(grids, key=lambda g: abs(g[0] - g[1]))


@lru_cache(maxsize=64)
def _tiling(x: int, y: int) -> RankRule:
    return RankRule(lambda n: bool(_grids(x, y, n)),
                    f"its processes must tile {x}x{y} routers as a PX x PY torus (PX | {x}, "
                    f"PY | {y})")


def _routers(v: Dict[str, Any]) -> Tuple[int, int]:
    """The one torus of routers (the binary's grids option, parsed by its Param)."""
    if len(v["routers"]) != 1:
        raise UsageError(f"--set routers: one XxY torus, {len(v['routers'])} given")
    return v["routers"][0]


def _rank_rule(v: Dict[str, Any]) -> RankRule:
    """PS's rank rule: the counts that tile its routers (ladders across nodes keep to it)."""
    return _tiling(*_routers(v))


def _network(v: Dict[str, Any]) -> Tuple[int, int, List[float]]:
    x, y = _routers(v)
    if not 2 <= x * y <= 2**30:   # a router is an int32 on the wire
        raise UsageError(f"--set routers: {x}x{y}: from 2 to 2^30 routers")
    if x * y * int(v["cycles"]) > MAX_WORK:
        raise UsageError(f"ps: {x}x{y} routers x {v['cycles']} cycles: more than "
                         f"{MAX_WORK:.0e} router-cycles")
    loads = number_list(v["loads"], "loads", 0.0, 100.0, True)
    for load in loads:   # a packet a router a cycle at most
        if load / 100 * 8 / max(x, y) / int(v["flits"]) > 1:
            raise UsageError(f"ps: a {load:g}% load of {x}x{y} routers needs more than one "
                             f"{v['flits']}-flit packet a router a cycle")
    return x, y, loads


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    x, y, loads = _network(v)
    work = x * y * int(v["cycles"]) * len(loads)
    fixed = [a for name in ("routers", "cycles", "flits", "seed")
             for a in b.param(name).to_arg(v[name])]
    fixed += ["--loads", ",".join(f"{load:g}" for load in loads)] + repetition_args(b, v)
    runs = int(v["min-reps"]) + int(v["warmup"]) + 1    # + the sequential reference
    specs = []
    for n in rank_counts(v["ranks"], ctx):
        px, py = process_grid(x, y, n)
        specs.append(LaunchSpec(
            b.name, f"ps np={n} {x}x{y} routers on {px}x{py}, {len(loads)} loads", "ps", fixed,
            n, "core", expected_results=METRICS * len(loads),
            estimate_s=expected_seconds(v, len(loads), parallel_seconds(
                work / len(loads) * TYPICAL_ROUTER_CYCLE_S, n, ctx)),
            timeout_s=launch_timeout(v, len(loads))
            + 3.0 * runs * work * SLOW_ROUTER_CYCLE_S))
    return specs


def _memory(spec: LaunchSpec, v: Dict[str, Any]) -> int:
    """Rank 0 also simulates the whole network alone; the packets in flight at most every
    packet injected (the highest load's, for the queues that grow past saturation)."""
    x, y, loads = _network(v)
    packets = max(loads) / 100 * 8 / max(x, y) / int(v["flits"]) * x * y * int(v["cycles"])
    return 2 * x * y * ROUTER_BYTES + int(2 * PACKET_BYTES * packets) + harness_bytes(v)


register_benchmark(Benchmark(
    "ps", "nas",
    "PS network simulator (the SP2 study's): a 2-D torus of routers with cut-through flow "
    "control and dimension-order routing, uniform random traffic at an offered load given as a "
    "% of the bisection's theoretical bandwidth; the routers in blocks over a logical 2-D torus "
    "of processes, each sending its four neighbours one short message per packet crossing (or "
    "a null message) a cycle; checked against a sequential run; execution time and messages "
    "vs load",
    options("ps", "routers loads cycles flits seed", **FEWER_REPS)
    + (ranks_sweep(note="; each must tile the routers as a PX x PY torus"),),
    _plan, ranks="--np or the ranks sweep (default 2)", memory=_memory, rank_rule=_rank_rule,
    tiny=("routers=8x8", "cycles=500", "loads=10,50"),
    # a budget's top rung: one variant of each choice (budget.py's tops)
    at_scale=("loads=10,50,90",),
    # simulated: at the study's 40,000 cycles (32 x 32 routers, min-reps 2, max-reps 3) every rank
    # sends its four neighbours a message a cycle, so a result costs cycles, not the point's
    # budget: fat tree N/2 x 2, scaled to 40,000 cycles, 4.5 at 16 ranks (4,000 cycles), 6.3 at 16
    # and 4.3 at 32 (8,000), 3.5 in the 1,024-rank study (16 ranks: 1,107 s for 20 results); 12.6
    # at 4 and 6.2 at 8 ranks (4,000 cycles)
    sim_per_result_s={"": 4.5},
    headline="execution time and messages vs load (the SP2 paper's Fig. 8)", doc="docs/nas_ps.md"))


# The study: the SP2 paper's network (32 x 32 routers, 40,000 cycles, 5% to 90%) on the rungs
# that tile it (up to 1024 processes: a router each).
register_study("ps", ranks="ladder<=1024", min_reps=2, max_reps=3, warmup=0)
