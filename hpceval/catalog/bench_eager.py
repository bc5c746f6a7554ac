"""eager: where the MPI library's eager protocol ends, from the time a late receive takes per
message size (csrc/comm/eager.c; the SP2 study's eager limit). An eager message is over before
its receive is posted, a rendezvous message starts then: the curve steps at the limit, and the
refinement brackets the step to `resolution` bytes. Placed as pingpong is: two ranks on one node
by default, on two nodes with --hosts A,B --ppn 1."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.common import (MESSAGES, REFINEMENT_NAMES, harness_bytes, launch_timeout,
                                    narrow_sizes, pair_ranks, repetition_args)
from hpceval.catalog.options import options
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, join_suite,
                                      register_benchmark, register_study)
from hpceval.errors import UsageError



def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    nranks = pair_ranks(ctx)
    if nranks < 2:
        raise UsageError(f"eager needs at least 2 ranks, --np {nranks} given")
    args = [a for n in ("sizes", "late") + REFINEMENT_NAMES for a in b.param(n).to_arg(v[n])]
    return [LaunchSpec(b.name, f"eager np={nranks}", "eager", args + repetition_args(b, v),
                       nranks, "core", expected_results=len(v["sizes"]),
                       timeout_s=launch_timeout(v, len(v["sizes"]) + v["refine"]))]


register_benchmark(Benchmark(
    "eager", "communication",
    "eager limit between ranks 0 and 1: the time from posting a late receive until the "
    "sender's MPI_Send has returned, per size; the step where the protocol changes is bracketed",
    options("eager", "sizes late refine refine-tol resolution buffer-pages", sizes=MESSAGES),
    _plan, ranks=">=2 (--np, default 2; ranks 0 and 1 measure)", narrow=narrow_sizes,
    memory=lambda spec, v: 2 * max(v["sizes"] + [1]) + harness_bytes(v),
    tiny=("sizes=8,64K", "refine=0"),
    # simulated: ranks 0 and 1 measure while the others wait blocked
    sim_busy_ranks={"": 2},
    headline="us (median); the limit in bytes", doc="docs/eager.md"))


# The study: the eager limit of a pair in a node (and across two nodes where the allocation
# has them, as pingpong).
register_study("eager", budget=0.1)

# the eager limit, bracketed (SP2 study), in the comm suite
join_suite("comm", "eager", budget=0.1)
