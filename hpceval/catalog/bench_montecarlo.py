"""montecarlo: the MCNP-like master-worker particle transport proxy (docs/apps_montecarlo.md).
Time per particle history vs the number of workers, for the EV7 study's two shapes of run:
many cycles of few particles (communication heavy) and few cycles of many particles."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.common import (expected_seconds, harness_bytes, launch_timeout,
                                    parallel_seconds, rank_counts, ranks_sweep, repetition_args)
from hpceval.catalog.options import options
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, Scales,
                                      register_benchmark, register_study)
from hpceval.errors import UsageError

METRICS = 3                      # history_time, cycle_time, master_busy
TYPICAL_HISTORY_S = 1e-7         # this machine's: 62-75 ns a history
TYPICAL_MESSAGE_S = 1e-4         # a work message's round trip through the master, across nodes
SLOW_HISTORY_S = 2e-6            # a pessimistic history (time limit): 30x this machine's
PASSED = ("cycles", "particles", "chunk", "geometry", "source", "thickness", "radii", "sigma-t",
          "scatter", "seed", "master-sleep")


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    chunks = -(-int(v["particles"]) // int(v["chunk"]))
    fixed = [a for name in PASSED for a in b.param(name).to_arg(v[name])] + repetition_args(b, v)
    run_s = int(v["cycles"]) * int(v["particles"]) * SLOW_HISTORY_S
    specs = []
    for n in rank_counts(v["ranks"], ctx):
        if chunks < n - 1:
            raise UsageError(f"montecarlo: {chunks} chunk(s) of {v['chunk']} histories per cycle "
                             f"leave some of the {n - 1} workers idle: lower chunk or raise "
                             "particles")
        shape = f"{v['cycles']}x{v['particles']}"
        specs.append(LaunchSpec(
            b.name, f"montecarlo np={n} {v['geometry']} {shape}", "montecarlo", fixed, n, "core",
            expected_results=METRICS,
            estimate_s=expected_seconds(v, 1, parallel_seconds(
                run_s * TYPICAL_HISTORY_S / SLOW_HISTORY_S, max(n - 1, 1), ctx)
                + (int(v["cycles"]) * chunks * TYPICAL_MESSAGE_S if n > 1 else 0.0)),
            timeout_s=launch_timeout(v, 1)
            + 3.0 * (int(v["warmup"]) + 2) * parallel_seconds(run_s, max(n - 1, 1), ctx)))
    return specs


MAX_REGIONS = 16                 # csrc/kernels/lib/mc_transport.h


def _check(v: Dict[str, Any]) -> None:
    """One material value per region, or one for every region (the binary's rules)."""
    if v["geometry"] == "spheres" and v["source"] != "normal":
        raise UsageError("--set source: spheres have a point source at the centre (source= is "
                         "for slabs)")
    shape = "thickness" if v["geometry"] == "slab" else "radii"
    regions = len(v[shape])
    for name in ("sigma-t", "scatter"):
        if len(v[name]) not in (1, regions):
            raise UsageError(f"--set {name}: {len(v[name])} values for {regions} region"
                             f"{'s' if regions > 1 else ''} ({shape}): give one, or one per "
                             "region")


register_benchmark(Benchmark(
    "montecarlo", "proxies",
    "MCNP-like master-worker Monte Carlo transport: the master hands out particle histories in "
    "chunks each cycle, workers track them through a slab stack or nested spheres (absorption, "
    "isotropic scattering), tallies combined per cycle; counter-based random streams, so the "
    "tallies are identical for any worker count; time per history, master's share",
    # the binary reads its materials as number lists (hpc_opt_numbers); the plan checks them
    # typed first, each list at most MAX_REGIONS long
    options("montecarlo", "cycles particles chunk geometry source thickness radii sigma-t scatter "
            "seed master-sleep",
            thickness=dict(kind="floats", min=0, max=1e15, above=True, max_items=MAX_REGIONS),
            radii=dict(kind="floats", min=0, max=1e15, above=True, increasing=True,
                       max_items=MAX_REGIONS),
            sigma_t=dict(kind="floats", min=0, max=1e30, max_items=MAX_REGIONS),
            scatter=dict(kind="floats", min=0, max=1, max_items=MAX_REGIONS))
    + (ranks_sweep(alone=1, note=" (master + workers)"),),
    _plan, ranks="--np or the ranks sweep (1 = the master tracks alone)", check=_check,
    # histories are tracked one at a time; the master keeps a chunk's tallies per worker
    memory=lambda spec, v: 64 * spec.nranks * MAX_REGIONS + harness_bytes(v),
    tiny=("particles=2000", "cycles=2"),
    # one rank is the master tracking alone; more ranks add workers and leave the master to
    # hand out and combine (its idle time is overhead)
    scales=Scales("cycle_time", "µs/cycle", (), "{geometry}",
                  ("geometry", "cycles", "particles", "chunk")),
    model="montecarlo",
    # simulated: the 256- and 1,024-rank studies of 2026-12-07 here, SMPI 3.32 (benchmarks/
    # study_run.py's costs)
    sim_per_result_s={"": 0.072},
    headline="time per history (ns, median), master's busy share", doc="docs/apps_montecarlo.md"))


# The study: a master and 1 .. N x K - 1 workers on few large cycles (an MCNP-like deck);
# 1,000 work messages a cycle keep up to 999 workers busy (more: left out, said). And the
# master alone: `hpceval predict` reads the time a history takes from that one-rank run.
register_study("montecarlo", cycles=4, particles=1000000, chunk=1000, ranks="1,ladder>=2",
               budget=0.3, min_reps=3, max_reps=20, warmup=1)
