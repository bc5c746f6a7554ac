"""netmap: the network map (csrc/comm/netmap.c; issue #51 item 2). One rank a node on every
node of the allocation: latency (8 B) and bandwidth (`bytes`, 1 MiB) of every pair of nodes in
P/2 rounds of shifted pairs (round k: i with i+k), every pair of a round's phase measured at
once. Up to `all-rounds` nodes every round is measured (every pair); above, `rounds` of them
(shift 1, shift P/2 and the rest drawn with `seed`): every node is still in two pairs a round,
so each node's links are a sample of its links to the others. The records say which rounds
they are of how many (`rounds`, `rounds_total`)."""
from __future__ import annotations

import random
from typing import Any, Dict, List

from hpceval.catalog.common import (MESSAGES, harness_bytes, launch_timeout, min_nodes,
                                    repetition_args, simulated_limit)
from hpceval.catalog.options import options
from hpceval.catalog.params import Param
from hpceval.catalog.registry import Benchmark, LaunchSpec, PlanContext, register_benchmark
from hpceval.errors import UsageError

ALL_ROUNDS = 64       # nodes up to which every round (every pair) is measured
SAMPLED_ROUNDS = 16   # rounds measured above: every node in 32 pairs


def map_ranks(v: Dict[str, Any], ctx: PlanContext, name: str = "netmap",
              what: str = "the map") -> int:
    """One rank a node on every node; on one machine the ranks --np asks for (2 by default:
    they share it, said in a note); 0 where min-nodes says the allocation is too small. `name`
    and `what` (what the shared machine measures instead of a network) for the notes."""
    if ctx.nodes >= 2:
        return ctx.nodes
    if v["min-nodes"] > ctx.nodes:
        ctx.note(f"{name} left out: the network needs {v['min-nodes']} nodes or more, this "
                 f"allocation has {ctx.nodes}")
        return 0
    n = ctx.nranks or 2
    if n < 2:
        raise UsageError(f"{name} needs 2 ranks or more (one a node), {n} given")
    ctx.note(f"{name} np={n}: the ranks share this machine, so {what} measures its shared "
             "memory, not a network (one rank a node on two nodes or more)")
    return n


def shifts(nranks: int, v: Dict[str, Any]) -> List[int]:
    """The rounds measured: every shift 1 .. P/2, or above all-rounds nodes a sample of `rounds`
    of them that keeps the nearest (1) and the farthest (P/2) shift."""
    total = nranks // 2
    if nranks <= v["all-rounds"] or v["rounds"] >= total:
        return list(range(1, total + 1))
    middle = random.Random(v["seed"]).sample(range(2, total), max(v["rounds"] - 2, 0))
    return sorted({1, total, *middle})


def pairs_of(nranks: int, ks: List[int]) -> int:
    """Pairs the rounds measure: P a round, P/2 for the shift P/2 of an even P."""
    return sum(nranks // 2 if 2 * k == nranks else nranks for k in ks)


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    n = map_ranks(v, ctx)
    if not n:
        return []
    ks = shifts(n, v)
    sampled = len(ks) < n // 2
    if sampled:
        ctx.note(f"netmap np={n}: {len(ks)} of {n // 2} rounds sampled (seed {v['seed']}), "
                 f"{pairs_of(n, ks)} of {n * (n - 1) // 2} pairs; every node in "
                 f"{2 * len(ks) - 1} pairs or more")
    args = ["--bytes", str(v["bytes"]), "--shifts", ",".join(map(str, ks)) if sampled else "0"]
    args += b.param("buffer-pages").to_arg(v["buffer-pages"]) + repetition_args(b, v)
    phases = 3 * len(ks)              # 2 or 3 phases a round, one after the other
    return [simulated_limit(LaunchSpec(b.name, f"netmap np={n} rounds={len(ks)}", "netmap", args, n, "core",
                       expected_results=2 * pairs_of(n, ks),
                       timeout_s=launch_timeout(v, 2 * phases),
                       ppn=1 if ctx.nodes >= 2 else None), ctx)]


register_benchmark(Benchmark(
    "netmap", "communication",
    "network map: latency (8 B) and bandwidth of every pair of nodes, one rank a node, in P/2 "
    "rounds of shifted pairs measured at once (sampled rounds above all-rounds nodes)",
    options("netmap", "bytes buffer-pages", bytes=MESSAGES)
    # the planner's rounds (the binary's --shifts)
    + (Param("all-rounds", "int", ALL_ROUNDS, "nodes up to which every round (every pair) is "
             "measured", 2, 1 << 20),
       Param("rounds", "int", SAMPLED_ROUNDS, "rounds measured above all-rounds nodes", 2,
             1 << 20),
       Param("seed", "int", 1, "seed of the sampled rounds", 0, 1 << 30),
       min_nodes("the map", 2, "on one node, map --np ranks of this machine")),
    _plan, ranks="one a node on every node (>=2; on one machine --np)",
    memory=lambda spec, v: 2 * v["bytes"] + harness_bytes(v),
    tiny=("bytes=64K",),
    # simulated: 0.105 s a result at 8 nodes and 0.094 at 16, flat N x 1, its defaults; one
    # process runs every pair's messages, so a result is its pair's two ranks' work
    sim_per_result_s={"": 0.05},
    sim_busy_ranks={"": 2},
    headline="us, MB/s (median)", doc="docs/acceptance.md"))
