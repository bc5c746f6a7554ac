"""loggp: the LogGP parameters (L, o_s, o_r, g, G) of ranks 0 and 1 by netgauge's method
(message trains with and without computation between the messages; docs/loggp.md). Placed as
pingpong is: two ranks on one node by default, on two nodes with --hosts A,B --ppn 1."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.common import (MESSAGES, check_memory, harness_bytes, launch_timeout,
                                    narrow_whole, pair_ranks, repetition_args)
from hpceval.catalog.options import options
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, join_suite,
                                      register_benchmark, register_study)
from hpceval.errors import UsageError

POINTS_PER_SIZE = 5          # round trip, the computation alone, gap, o_s, o_r
RESULTS_PER_SIZE = 4         # round_trip, gap, o_s, o_r (+ one summary record, L)


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    nranks = pair_ranks(ctx)
    if nranks < 2:
        raise UsageError(f"loggp needs at least 2 ranks, --np {nranks} given")
    sizes = v["sizes"]
    if len(set(sizes)) < 2:
        raise UsageError("loggp: --set sizes needs at least two different sizes (G is a slope "
                         "over sizes)")
    check_memory(2 * max(sizes) * ctx.ranks_per_node(nranks), ctx, "loggp message buffers")
    args = [a for n in ("sizes", "train", "delay") for a in b.param(n).to_arg(v[n])]
    return [LaunchSpec(b.name, f"loggp np={nranks}", "loggp", args + repetition_args(b, v),
                       nranks, "core", expected_results=RESULTS_PER_SIZE * len(sizes) + 1,
                       timeout_s=launch_timeout(v, POINTS_PER_SIZE * len(sizes)))]


register_benchmark(Benchmark(
    "loggp", "communication",
    "LogGP parameters L, o_s, o_r, g, G between ranks 0 and 1 (netgauge: message trains with "
    "and without computation between messages); o_s, o_r, g and the round trip per size",
    options("loggp", "sizes train delay buffer-pages", sizes=MESSAGES),
    # every size feeds the summary (L, G): a point is re-measured with its whole launch
    _plan, ranks=">=2 (--np, default 2; ranks 0 and 1 measure)", narrow=narrow_whole,
    memory=lambda spec, v: 2 * max(v["sizes"]) + harness_bytes(v),
    tiny=("sizes=0,64K", "train=8"),
    # simulated: ranks 0 and 1 measure while the others wait blocked
    sim_busy_ranks={"": 2},
    headline="L, o_s, o_r, g (us), G (us/byte)", doc="docs/loggp.md"))


# The study: LogGP's parameters, which `hpceval predict` uses.
register_study("loggp", budget=0.1)

# L, o_s, o_r, g, G (what `hpceval predict` uses) in the comm suite
join_suite("comm", "loggp", budget=0.1)
