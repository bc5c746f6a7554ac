"""evh1: the EVH1-like hydrodynamics proxy of the IBM p690 talk (docs/apps_evh1.md): directional
operator splitting, a Lagrangian PPM sweep and a remap per axis, the domain in pencils with a
transpose of the decomposition between sweeps (MPI_Alltoallv as EVH1, a pairwise exchange, or
MPI_Alltoallw of subarray datatypes). Zones per second per rank and the transposes' share of the
time, per variant and rank count (weak and strong scaling)."""
from __future__ import annotations

import math
from typing import Any, Dict, List, Tuple

from hpceval.catalog.common import (check_memory, expected_seconds, harness_bytes, int_tuple,
                                    launch_timeout, rank_counts, ranks_sweep, repetition_args,
                                    spec_arg)
from hpceval.catalog.options import choices, options
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, Scales, Tunes,
                                      register_benchmark,
                                      register_study)
from hpceval.errors import UsageError

BENCH = "evh1"
VARIANTS = choices(BENCH, "transposes")   # hpceval/analysis/predict/evh1.py
METRICS = 4                 # step_time, zone_rate, zone_rate_per_rank, transpose_share a point
BYTES_PER_ZONE = 8 * 5 * 4  # 5 fields in 4 buffers (state, spare, packed send and receive)
MIN_RATE = 2e4              # zone updates per second per rank, pessimistic (time limit)
TYPICAL_RATE = 1e6          # this machine's: 1.1 M zones/s on one rank, loaded (docs/apps_evh1.md)
SOD_STEPS_PER_ZONE = 0.6    # Sod's check run to t = 0.2 takes 0.55 steps per zone of the tube
MAX_BOX = 1 << 24           # the binary's bound on a rank's largest box (csrc/kernels/evh1.c)
CHECK_STEPS = 100           # the blast's check run at most (EV_CHECK_STEPS, lib/evh1_check.h)


def dims2(n: int) -> Tuple[int, int]:
    """MPI_Dims_create(n, 2): the most nearly square P x Q = n, P >= Q."""
    q = max(d for d in range(1, math.isqrt(n) + 1) if n % d == 0)
    return n // q, q


def _pgrid(v: Dict[str, Any], n: int) -> Tuple[int, int]:
    """The process grid for n ranks: the one --set npe gives (the binary's grids option), else
    MPI_Dims_create's."""
    if not v["npe"]:
        return dims2(n)
    if len(v["npe"]) != 1:
        raise UsageError(f"--set npe: one PxQ grid, {len(v['npe'])} given")
    p, q = v["npe"][0]
    if p * q != n:
        raise UsageError(f"evh1: --set npe={p}x{q} does not fit {n} ranks (P Q = ranks)")
    return p, q


def _grids(v: Dict[str, Any]) -> Tuple[str, List[tuple]]:
    """('--grid', global grids) for strong scaling, else ('--zones', zones per rank)."""
    key = "grid" if v["grid"] else "zones"
    return f"--{key}", list(v[key])


def weak_factors(n: int) -> Tuple[int, int, int]:
    """f0 >= f1 >= f2, f0 f1 f2 = n: each prime factor of n, largest first, multiplies the
    smallest factor so far (csrc/kernels/evh1.c weak_factors() is the same)."""
    primes, d = [], 2
    while n > 1:
        while n % d == 0:
            primes.append(d)
            n //= d
        d += 1
    f = [1, 1, 1]
    for prime in reversed(primes):
        f[f.index(min(f))] *= prime
    return tuple(sorted(f, reverse=True))


def global_grid(opt: str, g: tuple, nranks: int) -> tuple:
    """The global grid of a point: given (strong), or the zones per rank times the rank
    count's most even three factors (weak: every axis grows, so the pencils fit)."""
    return g if opt == "--grid" else tuple(a * f for a, f in zip(g, weak_factors(nranks)))


def largest_box(n: tuple, p: int, q: int) -> int:
    """Zones of a rank's largest pencil box over the three layouts (csrc/kernels/evh1.c)."""
    c = lambda a, k: -(-a // k)  # noqa: E731 - ceiling division
    return max(n[0] * c(n[1], p) * c(n[2], q), c(n[0], p) * n[1] * c(n[2], q),
               c(n[0], p) * c(n[1], q) * n[2])


def _fits(n: tuple, p: int, q: int, label: str) -> int:
    if p > min(n[0], n[1]) or q > min(n[1], n[2]):
        raise UsageError(f"{label}: a {'x'.join(map(str, n))} grid on {p}x{q} ranks leaves a "
                         "rank without zones (P at most nx and ny, Q at most ny and nz)")
    box = largest_box(n, p, q)
    if box > MAX_BOX:
        raise UsageError(f"{label}: {box} zones on a rank, more than the binary's {MAX_BOX}")
    return box


def _check_steps(v: Dict[str, Any], n: tuple) -> float:
    """Steps of the check run: the blast's --steps (at most CHECK_STEPS), or Sod's run to
    t = 0.2."""
    if v["problem"] == "blast":
        return float(min(int(v["steps"]), CHECK_STEPS))
    return SOD_STEPS_PER_ZONE * n["xyz".index(v["axis"])]


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    opt, grids = _grids(v)
    variants = v["transposes"]
    fixed = ([opt, ",".join("x".join(map(str, g)) for g in grids),
              "--transposes", ",".join(variants), "--problem", v["problem"], "--axis", v["axis"]]
             + [a for name in ("steps", "gamma", "cfl", "l1-bound")
                for a in b.param(name).to_arg(v[name])] + repetition_args(b, v))
    points = len(grids) * len(variants)
    specs = []
    for n in rank_counts(v["ranks"], ctx):
        p, q = _pgrid(v, n)
        label = f"evh1 np={n}"
        sizes = [global_grid(opt, g, n) for g in grids]
        box = max(_fits(s, p, q, label) for s in sizes)
        check_memory(ctx.ranks_per_node(n) * BYTES_PER_ZONE * box, ctx, label)
        per_rank = max(s[0] * s[1] * s[2] for s in sizes) / n
        step_s = per_rank / MIN_RATE
        checks_s = sum(_check_steps(v, s) for s in sizes) * len(variants) * step_s
        sample_s = step_s * int(v["steps"])
        specs.append(LaunchSpec(
            b.name, f"{label} {fixed[1]}{'/rank' if opt == '--zones' else ''} {v['problem']} "
            f"{','.join(variants)}", "evh1", fixed + ["--npe", f"{p}x{q}"], n, "core",
            expected_results=METRICS * points,
            estimate_s=expected_seconds(v, points, sample_s * MIN_RATE / TYPICAL_RATE)
            + checks_s * MIN_RATE / TYPICAL_RATE,
            timeout_s=launch_timeout(v, points) + checks_s
            + 3.0 * (int(v["warmup"]) + 3) * sample_s * points))
    return specs


def _memory(spec: LaunchSpec, v: Dict[str, Any]) -> int:
    """BYTES_PER_ZONE for every zone of the largest box a rank holds."""
    p, q = int_tuple(spec_arg(spec, "--npe"), "npe", "PxQ", 2)
    opt = "--grid" if spec_arg(spec, "--grid") else "--zones"
    box = max(largest_box(global_grid(opt, int_tuple(g, opt[2:], "NXxNYxNZ", 3), spec.nranks),
                          p, q)
              for g in spec_arg(spec, opt).split(","))
    return BYTES_PER_ZONE * box + harness_bytes(v)


register_benchmark(Benchmark(
    BENCH, "proxies",
    "EVH1-like gas dynamics (IBM p690 talk): directional splitting, 1-D Lagrangian PPM sweeps "
    "with a remap to the fixed grid in x, y, z, the domain in pencils transposed between sweeps "
    "(MPI_Alltoallv, pairwise, MPI_Alltoallw datatypes); zones/s per rank and the transposes' "
    "share; Sod along each axis against the exact solution, a blast's symmetry and conservation",
    # the planner reads the process grid itself (one, fitted to each rank count); gamma 1 and
    # a zero Courant number are no flow it can plan
    options("evh1", "zones grid npe transposes problem axis steps gamma cfl l1-bound",
            gamma=dict(min=1.0001), cfl=dict(min=0.01, max=0.99))
    + (ranks_sweep(),),
    _plan, ranks="--np or the ranks sweep", memory=_memory,
    tiny=("zones=8x8x8", "steps=2"),
    # a budget's top rung: one variant of each choice, and samples of 2 steps (budget.py's
    # tops: at 1,024 simulated ranks this host computes every rank's zones)
    at_scale=("transposes=alltoallv", "steps=2"), seed_curve=True,
    # the transpose is the variant; grid, problem and its axis make the problem
    scales=Scales("step_time", "µs/step", ("transpose",), "{transpose}",
                  ("nx", "ny", "nz", "problem", "axis")),
    tunes=Tunes("step_time", ("nx", "ny", "nz", "problem", "axis"), ("transpose", "P", "Q"),
                ("transposes=all",), "{transpose} {P}x{Q}"),
    model="evh1",
    # simulated: the 256- and 1,024-rank studies of 2026-12-07 here, SMPI 3.32 (benchmarks/
    # study_run.py's costs)
    sim_per_result_s={"": 0.12},
    headline="zone updates per second per rank (median), the transposes' share, time per step,"
             " overhead breakdown",
    doc="docs/apps_evh1.md"))


# The study: weak scaling at 32^3 zones per rank and strong scaling of a 64^3 grid over every
# rung, each with the three transposes (the best per rank count is `hpceval tune`'s table).
register_study(BENCH, zones="32x32x32", ranks="ladder", budget=0.3, min_reps=3, max_reps=20,
               warmup=1)
register_study(BENCH, grid="64x64x64", ranks="ladder<=4096", budget=0.3, min_reps=3,
               max_reps=20, warmup=1)
