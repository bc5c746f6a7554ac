"""bisection: effective bisection bandwidth by netgauge's method (csrc/comm/bisection.c; issue #51
item 3). One rank a node on every node of the allocation: `matchings` random perfect matchings
of the ranks drawn with `seed` (the same every run), every pair of a matching exchanging `bytes`
in both directions at once; per pair its bandwidth, per matching the aggregate (the slowest
pair's pace). The effective bisection bandwidth and the distribution over matchings are
hpceval/analysis/bisection.py's."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.bench_netmap import map_ranks
from hpceval.catalog.common import (MESSAGES, harness_bytes, launch_timeout, min_nodes,
                                    repetition_args, simulated_limit)
from hpceval.catalog.options import options
from hpceval.catalog.registry import Benchmark, LaunchSpec, PlanContext, register_benchmark



def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    n = map_ranks(v, ctx, "bisection", "the bisection")
    if not n:
        return []
    m = v["matchings"]
    args = ["--bytes", str(v["bytes"]), "--matchings", str(m), "--seed", str(v["seed"])]
    args += b.param("buffer-pages").to_arg(v["buffer-pages"]) + repetition_args(b, v)
    return [simulated_limit(LaunchSpec(
        b.name, f"bisection np={n} matchings={m}", "bisection", args, n, "core",
        expected_results=m * (n // 2 + 1), timeout_s=launch_timeout(v, 2 * m),
        ppn=1 if ctx.nodes >= 2 else None), ctx)]


register_benchmark(Benchmark(
    "bisection", "communication",
    "effective bisection bandwidth (netgauge): random perfect matchings of the nodes, one rank "
    "a node, every pair exchanging a large message at once; per-pair and aggregate bandwidth",
    options("bisection", "bytes matchings seed buffer-pages", bytes=MESSAGES)
    + (min_nodes("the bisection", 2, "on one node, --np ranks of this machine"),),
    _plan, ranks="one a node on every node (>=2; on one machine --np)",
    memory=lambda spec, v: 2 * v["bytes"] + harness_bytes(v),
    tiny=("bytes=64K", "matchings=2"),
    # simulated: 8 matchings at 64 KiB, 8 nodes: 1.4 s for 40 results; a pair's record (and a
    # matching's aggregate) is its pair's
    sim_per_result_s={"": 0.015},
    sim_busy_ranks={"": 2},
    headline="MB/s (median)", doc="docs/acceptance.md"))
