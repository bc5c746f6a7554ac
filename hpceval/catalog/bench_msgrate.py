"""msgrate: message rate and aggregate bandwidth of pairs streaming at once (csrc/comm/msgrate.c,
as osu_mbw_mr; issue #48). Of N ranks, rank i sends windows of messages to rank i + N/2: ranks
placed by node on two nodes pair across them. One launch per rank count, so the ladder of pair
counts is the ladder of rank counts (2, 4, 8 ... ranks: 1, 2, 4 ... pairs)."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.common import (MESSAGES, TIMEOUT_FACTOR, TIMEOUT_FIXED_S, harness_bytes,
                                    launch_timeout, pow2_sizes, rank_counts, ranks_sweep,
                                    repetition_args)
from hpceval.catalog.options import options
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, join_suite,
                                      register_benchmark, register_study)
from hpceval.errors import UsageError

# The rate a launch's plan assumes for moving its messages, every pair's windows together: below
# a node's memory bandwidth and a 100 Gb/s link's 12.5 GB/s (its time limit allows 3.3 GB/s).
PLANNED_BYTES_PER_S = 10e9


def _pairs(v: Dict[str, Any], n: int) -> int:
    """The pairs a launch of n ranks measures; bad counts refused as the binary would."""
    if n < 2 or n % 2:
        raise UsageError(f"msgrate needs an even number of ranks (2 or more), {n} given")
    if v["pairs"] > n // 2:
        raise UsageError(f"--set msgrate.pairs={v['pairs']}: {v['pairs']} pairs need "
                         f"{2 * v['pairs']} ranks, {n} given")
    return v["pairs"] or n // 2


def _volume_s(v: Dict[str, Any], pairs: int) -> float:
    """Seconds a launch may need beyond its points' budgets: the harness keeps min-reps samples
    (after the warm-up and 3 calibration samples) whatever the budget, and at 4 MiB one window
    of 64 pairs moves 16 GiB."""
    windows = int(v["min-reps"]) + int(v["warmup"]) + 3
    return windows * pairs * v["window"] * sum(v["sizes"]) / PLANNED_BYTES_PER_S


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    specs = []
    for n in rank_counts(v["ranks"], ctx):
        pairs = _pairs(v, n)
        args = [a for name in ("sizes", "window", "pairs", "buffer-pages")
                for a in b.param(name).to_arg(v[name])]
        points = len(v["sizes"])
        specs.append(LaunchSpec(b.name, f"msgrate np={n} pairs={pairs}", "msgrate",
                                args + repetition_args(b, v), n, "core",
                                expected_results=2 * points,
                                timeout_s=launch_timeout(
                                    v, points, TIMEOUT_FIXED_S + TIMEOUT_FACTOR * _volume_s(v, pairs))))
    return specs


register_benchmark(Benchmark(
    "msgrate", "communication",
    "message rate and aggregate bandwidth: rank i streams windows of non-blocking sends to "
    "rank i + N/2, every pair at once (osu_mbw_mr)",
    options("msgrate", "sizes window pairs buffer-pages", sizes=MESSAGES)
    + (ranks_sweep(note=" (even)", ladder=True),),
    _plan, ranks="even, >=2 (--np or the ranks sweep)",
    # a sender's message, or the one buffer a receiver's window lands in (comm_alloc)
    memory=lambda spec, v: max(v["sizes"]) + harness_bytes(v),
    tiny=("sizes=8,64K",),
    # simulated: 64-message windows at the study's settings: 1.9 (2 ranks on one host: its points
    # ran to max-reps 200) and 0.54 (4 ranks on two hosts), fat tree 32 x 2
    sim_per_result_s={"": 1.0},
    headline="Mmsg/s, MB/s (median)", doc="docs/msgrate.md"))


# The study: 1, 2, 4 ... K/2 pairs in a node (2 .. K ranks), then K pairs across two nodes; sizes
# to 1 MiB (a 4 MiB window of every pair of a big node outlasts its point budget many times).
register_study("msgrate", budget=0.05, ci_target=0.03, max_reps=200, ranks="node>=2,cross",
               sizes=",".join(map(str, pow2_sizes(1, 1 << 20))))

# The comm suite: message rate and aggregate bandwidth of 1 and 2 pairs (osu_mbw_mr).
join_suite("comm", "msgrate", budget=0.05, ci_target=0.03, max_reps=200, ranks="2,4",
           sizes="1,8,64,1K,8K,64K,1M")
