"""dense: a distributed dense linear solve on ScaLAPACK (docs/dense.md): AORSA3D's complex system
(pzgesv) or HPL's real one (pdgesv), block-cyclic in NB x NB blocks on P x Q process grids;
GFlop/s by the standard operation count, factorisation and solve times, HPL's residual check on
every sample. The planner draws n from the memory of the nodes a launch spans (HPL's rule: the
largest system that fits a stated share, and smaller ones), and sweeps NB and the grids of each
rank count; the report keeps the best grid per rank count (as `hpceval tune`)."""
from __future__ import annotations

import dataclasses
import math
from typing import Any, Dict, List, Optional, Tuple

from hpceval.catalog.common import (again_label, expected_seconds, harness_bytes, launch_timeout,
                                    parallel_seconds, process_grids, rank_counts, ranks_sweep,
                                    repetition_args, spec_arg)
from hpceval.catalog.options import from_binary, options
from hpceval.catalog.params import Param
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, Tunes,
                                      register_benchmark,
                                      register_study)
from hpceval.errors import UsageError

BYTES = {"complex": 16, "real": 8}    # a matrix element, per kind (--kinds of the binary)
ROUTINE = {"complex": "pzgesv", "real": "pdgesv"}
METRICS = 4                            # gflops, time, factor_time, solve_time
TYPICAL_GFLOPS = 10.0     # a rank's rate here (n 400, one rank: 21 real, 33 complex; loaded)
SLOW_GFLOPS = 1.0         # pessimistic (time limit): 10x below this machine's
GENERATE_S_PER_ELEMENT = 2e-8   # writing A once (splitmix64 per element), pessimistic
SIZES_BELOW = 2           # with n from memory: the largest n, and n/2, n/4
MAX_ORDER = 1_000_000     # the binary's bound on n
# One solve's rank uses one core: OpenBLAS's own threads would share the cores with the other
# ranks (HPL's usual configuration: MPI only).
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "BLIS_NUM_THREADS": "1"}


def flops(kind: str, n: int) -> float:
    """The standard operation count of one solve: HPL's 2/3 n^3 + 3/2 n^2 (real); a complex
    multiply-add is four real ones, so 4x that (8/3 n^3 + 6 n^2) for a complex system."""
    return (4.0 if kind == "complex" else 1.0) * (2.0 / 3.0 * n ** 3 + 1.5 * n ** 2)


def largest_order(kind: str, share: float, nranks: int, nb: int, ctx: PlanContext) -> int:
    """The largest n (a multiple of NB) whose matrix fits `share` of the available memory of the
    nodes an n-rank launch fills: the same n on every rung of one node, growing with the nodes."""
    if not ctx.mem_available_bytes:
        raise UsageError("dense: the available memory is unknown here: give the orders "
                         "(--set n=...)")
    nodes = -(-nranks // ctx.per_node)
    n = int(math.sqrt(share * ctx.mem_available_bytes * nodes / BYTES[kind]))
    n = min(n - n % nb, MAX_ORDER - MAX_ORDER % nb)
    if n < nb:
        raise UsageError(f"dense: {share:g} of the memory holds no {kind} system of NB {nb}")
    return n


def orders(v: Dict[str, Any], kind: str, nranks: int, nbs: List[int],
           ctx: PlanContext) -> List[int]:
    """The n list: as given, else the largest that fits memory and its halves."""
    if v["n"]:
        return sorted(v["n"])
    nb = max(nbs)
    top = largest_order(kind, float(v["memory"]), nranks, nb, ctx)
    return sorted({max(nb, (top >> k) - (top >> k) % nb) for k in range(SIZES_BELOW + 1)})


def _extent(n: int, nb: int, p: int) -> int:
    """A rank's rows (or columns) of n at most on p process rows: ceil(n / (p NB)) blocks."""
    return -(-n // (p * nb)) * nb


def _seconds(kind: str, n: int, nranks: int, gflops: float, ctx: PlanContext) -> float:
    return parallel_seconds(flops(kind, n) / (gflops * 1e9), nranks, ctx)


def _launch(b: Benchmark, v: Dict[str, Any], ctx: PlanContext, nranks: int, kind: str,
            grids: List[Tuple[int, int]], nbs: List[int]) -> LaunchSpec:
    ns = orders(v, kind, nranks, nbs, ctx)
    for n in ns:
        if min(nbs) > n:
            raise UsageError(f"dense: NB {min(nbs)} is larger than the matrix (n {n})")
    per_grid = len(grids) * len(nbs)
    reps = int(v["warmup"]) + int(v["min-reps"]) + 1
    typical = sum(_seconds(kind, n, nranks, TYPICAL_GFLOPS, ctx) for n in ns) * per_grid
    slow = sum(_seconds(kind, n, nranks, SLOW_GFLOPS, ctx) + GENERATE_S_PER_ELEMENT * n * n
               for n in ns) * per_grid
    points = len(ns) * per_grid
    args = (["--kinds", kind, "--n", ",".join(map(str, ns)), "--nb", ",".join(map(str, nbs)),
             "--grids", ",".join(f"{p}x{q}" for p, q in grids)] + repetition_args(b, v)
            + (["--solver", v["solver"]] if v["solver"] != "scalapack" else []))
    return LaunchSpec(
        b.name, f"dense np={nranks} {kind} n={','.join(map(str, ns))}", "dense", args, nranks,
        "core", env=dict(ONE_THREAD), expected_results=METRICS * points,
        estimate_s=expected_seconds(v, points, typical / points),
        timeout_s=launch_timeout(v, points) + 3.0 * reps * slow)


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    kinds, nbs = v["kind"], sorted(v["nb"])
    counts = rank_counts(v["ranks"], ctx)
    specs = []
    for nranks in counts:
        grids = process_grids(str(v["grids"]).strip(), nranks, "grids", len(counts) > 1)
        if v["solver"] == "lookahead" and (kinds != ["real"] or any(p != 1 for p, _ in grids)):
            raise UsageError("dense: --set solver=lookahead solves real systems on 1 x Q grids "
                             "(--set kind=real --set grids=1xQ)")
        specs += [_launch(b, v, ctx, nranks, kind, grids, nbs) for kind in kinds]
    return specs


def _ints(spec: LaunchSpec, option: str) -> List[int]:
    return [int(x) for x in (spec_arg(spec, option) or "").split(",") if x]


def _memory(spec: LaunchSpec, v: Dict[str, Any]) -> float:
    """A rank's largest part of A over the launch's points, b, x, r and the pivots."""
    elem = BYTES[spec_arg(spec, "--kinds") or "complex"]
    grids = [tuple(map(int, g.split("x"))) for g in (spec_arg(spec, "--grids") or "").split(",")]
    need = 0
    for n in _ints(spec, "--n"):
        for nb in _ints(spec, "--nb"):
            for p, q in grids:
                rows, cols = _extent(n, nb, p), _extent(n, nb, q)
                need = max(need, elem * (rows * cols + 4 * rows) + 4 * (rows + nb))
    return need + harness_bytes(v)


def _set_arg(args: List[str], option: str, value: str) -> List[str]:
    out = list(args)
    out[out.index(option) + 1] = value
    return out


def _narrow(spec: LaunchSpec, params: Dict[str, Any]) -> Optional[LaunchSpec]:
    """Measure one point again: its kind, n, NB and grid."""
    if not all(isinstance(params.get(k), int) for k in ("n", "nb", "P", "Q")):
        return None
    args = spec.args
    for option, value in (("--n", params["n"]), ("--nb", params["nb"]),
                          ("--grids", f"{params['P']}x{params['Q']}")):
        args = _set_arg(args, option, str(value))
    what = f"n={params['n']} nb={params['nb']} {params['P']}x{params['Q']} "
    return dataclasses.replace(spec, args=args, label=again_label(spec.label, what),
                               expected_results=METRICS)



register_benchmark(Benchmark(
    "dense", "kernels",
    "dense linear solve on ScaLAPACK, LU with partial pivoting and the triangular solves: "
    "complex (pzgesv, AORSA3D) or real (pdgesv, HPL), block-cyclic NB x NB on P x Q grids; "
    "HPL's scaled residual below 16 on every sample; GFlop/s, factorisation and solve times",
    # a launch per kind ('all': both); n empty: from memory (orders)
    options("dense", "n nb grids", n=dict(default=[], more="empty: from memory, the largest "
                                          "that fits --set memory of each node and its halves"),
            grids=dict(kind="str", more="square: the two most nearly square, "
                       "squarest: the most"),
            # fewer, longer samples: each is a whole factorisation
            warmup=dict(default=1), min_reps=dict(default=3), max_reps=dict(default=20))
    + (from_binary("dense", "kinds", name="kind", default="complex", every=True,
                   more="or all"),
       from_binary("dense", "solver"),
       Param("memory", "float", 0.01, "share of a node's available memory the largest matrix "
             "takes when n is not given (HPL uses most of it)", 1e-6, 0.8, above=True),
       ranks_sweep(ladder=True)),
    _plan, ranks="--np or the ranks sweep", narrow=_narrow, memory=_memory,
    tiny=("n=200", "nb=32"),
    # a budget's top rung: one variant of each choice (budget.py's tops)
    at_scale=("grids=squarest",), seed_curve=True,
    # a short budget's smaller problem: n from 0.2% of the nodes' memory, not 2%, a 30th of the
    # time (a 256 GiB node's estimates: one rank 64 min -> 2 min, 100 ranks 155 s -> 7 s)
    lean=("memory=0.002",),
    # block size and process grid per order (its views: hpceval/views/rows_dense.py,
    # figures_dense.py)
    # (the factorisation a choice too: records of hpceval's own LU say solver, ScaLAPACK's not)
    tunes=Tunes("time", ("kind", "n"), ("nb", "P", "Q", "solver"), ("grids=all", "nb=32,64,128"),
                "NB {nb} {P}x{Q}{solver: ?}"),
    headline="GFlop/s (standard count), factorisation and solve times", doc="docs/dense.md"))


# The study: on every rung, the largest complex system that fits 2% of each node's memory and
# its halves (n grows with the nodes, as HPL's), NB 64, the two most nearly square grids.
register_study("dense", kind="complex", memory=0.02, nb=64, grids="square", ranks="ladder",
               budget=1, min_reps=2, max_reps=3, warmup=0)
