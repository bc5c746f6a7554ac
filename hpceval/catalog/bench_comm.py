"""The communication benchmarks (COMMTEST, EV7 and SP2 studies) and the `comm` suite.

pingpong      the walking skeleton's MPI_Send/MPI_Recv ping-pong (the report's headline)
p2p           ping-pong, swap, streaming; every protocol; COMMTEST placement patterns
collectives   barrier .. alltoallv vs size and rank count (SP2 method)
distance      rank 0 to every rank, or the full rank x rank matrix
hotspot       k senders to rank 0
random2       evens ping-pong with random odds, all at once
halo          2-D halo exchange: packed vs derived datatypes vs one-sided puts
"""
from __future__ import annotations

import bisect
import random
from collections.abc import Sequence
from typing import Any, Dict, List, Optional

from hpceval.catalog.common import (DEFAULT_MEMORY_SHARE, MESSAGES, REFINEMENT_NAMES, check_memory,
                                    fits_host, fits_memory, harness_bytes, launch_timeout,
                                    narrow_sizes, pair_ranks, repetition_args, spec_arg, words)
from hpceval.catalog.options import choices, from_binary, options
from hpceval.catalog.params import Param, ascii_int
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, Suite,
                                      register_benchmark, register_study, register_suite)
from hpceval.errors import UsageError
from hpceval.limits import MAX_RANKS, check_count

MODES = choices("p2p", "modes")
PROTOCOLS = choices("p2p", "protocols")
INTRA_PATTERNS = ("0-1", "intra-pairs")       # pairs on one node
FULL_MATRIX_MAX_RANKS = 64   # n(n-1)/2 pairs, one at a time: beyond this it takes hours


def _two_buffers(spec: LaunchSpec, v: Dict[str, Any]) -> int:
    """A send and a receive buffer of the largest message (comm_bufs_init), and a flush area."""
    return 2 * max(v["sizes"] + [1]) + int(v.get("flush", 0)) + harness_bytes(v)


def _plan_pingpong(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    nranks = pair_ranks(ctx)
    if nranks < 2:
        raise UsageError(f"pingpong needs at least 2 ranks, --np {nranks} given")
    sizes = v["sizes"]
    args = _args(b, v, ("sizes",) + REFINEMENT_NAMES)
    if v["method"] != "batch":
        args += b.param("method").to_arg(v["method"])
    results = 2 * len(sizes) - (1 if 0 in sizes else 0)
    return [LaunchSpec(b.name, f"pingpong np={nranks}", "pingpong", args, nranks, "core",
                       expected_results=results,
                       timeout_s=launch_timeout(v, len(sizes) + v["refine"]))]


register_benchmark(Benchmark(
    "pingpong", "communication",
    "MPI_Send/MPI_Recv ping-pong between ranks 0 and 1: latency (half round trip) and bandwidth",
    options("pingpong", "sizes refine refine-tol resolution method buffer-pages", sizes=MESSAGES),
    _plan_pingpong, ranks=">=2 (--np, default 2)", narrow=narrow_sizes, memory=_two_buffers,
    tiny=("sizes=8,64K", "refine=0"),
    # simulated: pingpong: 0.004 s a result a rank at 4 ranks of a 90 s simulated 64-rank study
    # here, ranks 0 and 1 busy
    sim_per_result_s={"": 0.008},
    sim_busy_ranks={"": 2},
    headline="latency = half the round trip (us, median); bandwidth = bytes / latency (MB/s = "
             "1e6 B/s)"))


# ---------------------------------------------------------------- helpers

def _joined(items: List[str], every) -> str:
    # "all" tells the binary to skip impossible mode/protocol pairs without a warning each.
    return "all" if set(items) == set(every) else ",".join(items)


def _rank_counts(text: str, ctx: PlanContext, default: int, least: int, what: str) -> List[int]:
    """The `nranks` parameter: comma-separated counts; empty means --np, else `default`; 'np'
    is the run's rank count (--np or --nodes x --ppn), dropped when none was given."""
    if not str(text).strip():
        counts = [ctx.nranks or default]
    else:
        words = [t.strip() for t in str(text).split(",") if t.strip()]
        try:
            counts = sorted({ctx.nranks if t == "np" else ascii_int(t) for t in words
                             if t != "np" or ctx.nranks})
        except ValueError:
            raise UsageError(f"--set nranks: '{text}' is not a list of rank counts "
                             "(or 'np')") from None
    check_count("--set nranks", max(counts, default=0), MAX_RANKS, "rank", least=0)
    for n in counts:
        if n < least:
            raise UsageError(f"{what} needs at least {least} ranks, {n} given")
    return counts


# The protocols p2p's exchanging modes run (csrc/comm/lib/p2p_engine.c,
# comm_proto_unsupported); pingpong and stream run every one but sendrecv. The ring pattern
# measures swap alone.
EXCHANGES = {"swap": ("sendrecv", "isend", "persistent", "put-fence", "get-fence"),
             "bistream": ("isend", "persistent", "put-fence", "get-fence")}
TIMED_MODES = ("pingpong", "swap")       # a latency record beside the bandwidth one


def _p2p_records(v: Dict[str, Any], pattern: str) -> int:
    """The records a p2p launch makes: a latency (pingpong, swap) and, above 0 bytes, a
    bandwidth for each size of each mode and protocol that runs. Two a point for every pair
    asked said 1,920 for the 957 that p2p 0-1's 24 sizes make, and a simulated launch's
    estimate is its records times their learned cost: 257 s planned, 114-131 s taken."""
    sizes = len(v["sizes"]) + v["refine"]
    sized = sizes - (0 in v["sizes"])
    n = 0
    for m in v["modes"]:
        if pattern == "ring" and m != "swap":
            continue
        allowed = EXCHANGES.get(m) or [p for p in PROTOCOLS if p != "sendrecv"]
        n += len([p for p in v["protocols"] if p in allowed]) * ((sizes if m in TIMED_MODES else 0) + sized)
    return n


def _pair_alone(counts: List[int], pattern: str, v: Dict[str, Any],
                ctx: PlanContext) -> List[int]:
    """p2p 0-1 at the run's rank count (nranks not given) on a simulated platform: on its pair
    alone. A simulated pair's times do not depend on the ranks idle beside it, and at 1,024
    simulated ranks those ranks' start-up (MPICH's selector building node communicators with a
    ring of P - 1 steps) took 254 of the comm suite's seconds (SimGrid 4.1)."""
    if pattern != "0-1" or str(v["nranks"]).strip() or not ctx.simulated:
        return counts
    if counts[0] > 2:
        ctx.note(f"p2p 0-1: on its pair alone (2 of the {counts[0]} simulated ranks): a "
                 "simulated pair's times do not depend on the ranks idle beside it")
    return [2]


def _args(b: Benchmark, v: Dict[str, Any], names) -> List[str]:
    out: List[str] = []
    for n in names:
        out += b.param(n).to_arg(v[n])
    return out + repetition_args(b, v)


NRANKS = Param("nranks", "str", "",
               "rank counts, comma-separated (empty: --np, else the benchmark's default; "
               "'np': the run's rank count when one is given)")


# ---------------------------------------------------------------- p2p

def _real_nodes(v: Dict[str, Any], ctx: PlanContext) -> Dict[str, Any]:
    """A run that spans nodes places its patterns on them: emulation (ranks-per-node) is for
    one machine only."""
    return {**v, "ranks-per-node": 0} if ctx.nodes > 1 else v


def _plan_p2p(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    v = _real_nodes(v, ctx)
    modes = v["modes"]
    protos = v["protocols"]
    patterns = v["patterns"]
    sizes = v["sizes"]
    specs = []
    for pattern in patterns:
        if ctx.nodes > 1 and ctx.per_node < 2 and pattern in INTRA_PATTERNS:
            ctx.note(f"p2p pattern {pattern} left out: with one rank per node no pair shares a "
                     "node")
            continue
        for n in _pair_alone(_rank_counts(v["nranks"], ctx, 2 if pattern == "0-1" else 4, 2,
                                          "p2p"), pattern, v, ctx):
            if pattern in ("intra-pairs", "cross-pairs") and n % 2:
                raise UsageError(f"p2p pattern {pattern} needs an even number of ranks, {n} given")
            check_memory(2 * max(sizes + [1]) * ctx.ranks_per_node(n), ctx, "p2p message buffers")
            args = (_args(b, v, ("sizes", "window", "flush", "refine", "refine-tol",
                                 "ranks-per-node"))
                    + ["--modes", _joined(modes, MODES), "--protocols", _joined(protos, PROTOCOLS),
                       "--pattern", pattern, f"--peer={v['peer']}"])
            points = (len(sizes) + v["refine"]) * len(modes) * len(protos)
            specs.append(LaunchSpec(b.name, f"p2p {pattern} np={n}", "p2p", args, n, "core",
                                    expected_results=_p2p_records(v, pattern),
                                    timeout_s=launch_timeout(v, points),
                                    ppn=_across_two(pattern, n, ctx)))
    return specs


def _across_two(pattern: str, n: int, ctx: PlanContext) -> Optional[int]:
    """Ranks a node for a pattern that crosses nodes (0-k, cross-pairs) where its n ranks would
    otherwise fill part of one node (4 ranks on a simulated node of 16 failed: 'needs ranks on
    at least 2 nodes'): half on each of two nodes. None: the allocation's own placement."""
    if ctx.nodes < 2 or pattern not in ("0-k", "cross-pairs") or n > ctx.per_node:
        return None
    ctx.note(f"p2p {pattern} np={n}: {n // 2} ranks a node, so that it spans two nodes")
    return n // 2


register_benchmark(Benchmark(
    "p2p", "communication",
    "point-to-point: ping-pong, swap, streaming (osu_bw window); every protocol; placement "
    "patterns with the slowest pair reported",
    options("p2p", "sizes modes protocols peer window flush refine refine-tol ranks-per-node "
            "buffer-pages", sizes=MESSAGES,
            # the plan sweeps every mode and protocol (a run of the binary alone: one of each),
            # and refines only where asked
            modes=dict(default="all"), protocols=dict(default="all"), refine=dict(default=0))
    # one launch a pattern
    + (from_binary("p2p", "pattern", name="patterns", kind="words"), NRANKS),
    _plan_p2p, ranks=">=2 (0-1: 2; other patterns: 4)", memory=_two_buffers,
    tiny=("sizes=8", "modes=pingpong,stream", "protocols=send,isend,put-fence"),
    # simulated: p2p's 0-1 pattern over every mode and protocol is the dearest (RMA streams in
    # SMPI); 0-1 and 0-k measure one pair while the others wait blocked (a 90 s simulated 64-rank
    # study here)
    sim_per_result_s={"": 0.006, "p2p 0-1": 0.046},
    sim_busy_ranks={"p2p 0-1": 2, "p2p 0-k": 2},
    headline="us, MB/s (median) with fitted piecewise t0 + n/r_inf models"))


# ---------------------------------------------------------------- collectives


# The operations whose buffers hold a block of every rank; the others' hold one
GATHERING = ("allgather", "alltoall", "alltoallv")


def _blocks(ops: Sequence[str], n: int) -> int:
    """Blocks of the largest size a rank's buffers hold, each of two buffers twice (alltoallv's
    largest block is 1.5x): n where an operation gathers, else 1."""
    return 4 * (n if any(o in GATHERING for o in ops) else 1)


def _plan_collectives(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    ops = v["ops"]
    sizes = v["sizes"]
    specs = []
    for n in _rank_counts(v["nranks"], ctx, 2, 1, "collectives"):
        per = _blocks(ops, n)
        # alltoall(v) and allgather hold n blocks per rank: at thousands of ranks the largest
        # sizes leave a node's memory, and are left out of that rung (said) rather than refused.
        # Simulated, all n ranks' buffers are in this host's memory (alltoall of 32 KiB at 256
        # ranks: 8 GiB): the sizes whose buffers all fit it are measured, the rest said.
        fit = [s for s in sizes if fits_memory(per * s * ctx.ranks_per_node(n), ctx)]
        check_memory(per * min(sizes) * ctx.ranks_per_node(n), ctx, "collective buffers")
        if len(fit) < len(sizes):
            ctx.note(f"collectives np={n}: sizes above {max(fit)} B per rank left out (their "
                     f"buffers do not fit a node's memory)")
        kept = [s for s in fit if fits_host(per * s, n, ctx)]
        if not kept:
            raise UsageError(f"collectives np={n}: {n} simulated ranks' buffers of "
                             f"{per * min(fit)} B each do not fit this host's memory")
        if len(kept) < len(fit):
            ctx.note(f"collectives np={n}: sizes above {max(kept)} B per rank left out "
                     f"(simulated: the {n} ranks' buffers together exceed "
                     f"{DEFAULT_MEMORY_SHARE:.0%} of this host's memory)")
        fit = kept
        args = _args(b, {**v, "sizes": fit}, ("sizes",)) + ["--ops", ",".join(ops)]
        points = 1 + (len(ops) - ("barrier" in ops)) * len(fit)
        specs.append(LaunchSpec(b.name, f"collectives np={n}", "collectives", args, n, "core",
                                expected_results=4 * points, timeout_s=launch_timeout(v, points)))
    return specs


register_benchmark(Benchmark(
    "collectives", "communication",
    "barrier, bcast, reduce (MPI_SUM and a null operation), allreduce, allgather, alltoall, "
    "alltoallv vs size and rank count: "
    "barrier-synchronised, barrier cost subtracted, slowest rank (mean beside it)",
    options("collectives", "ops sizes buffer-pages") + (NRANKS,),
    _plan_collectives, ranks=">=1 (nranks list; default --np or 2)",
    # alltoall(v): a send and a receive buffer of ranks x size, and as much again of staging
    # the sizes a rung kept (the largest may not fit a node at thousands of ranks)
    memory=lambda spec, v: _blocks(spec_arg(spec, "--ops").split(","), spec.nranks)
    * max(map(int, spec_arg(spec, "--sizes").split(",")))
    + harness_bytes(v),
    tiny=("sizes=8", "ops=barrier,allreduce,alltoall,reduce-null"),
    # a budget's top rung: one variant of each choice (budget.py's tops), and no operation that
    # gathers a block of every rank: P^2 messages a call (alltoall on 1,024 simulated ranks ran
    # over 30 minutes) and P blocks a rank (4 GB a rank at 10^6 ranks)
    at_scale=("sizes=4,1K", "ops=barrier,bcast,reduce,allreduce"), seed_curve=True,
    # simulated: a 90 s simulated 64-rank study here
    sim_per_result_s={"": 0.004},
    headline="us (median)"))


# ---------------------------------------------------------------- distance, hotspot, random2

def distance_sample(n: int, per_node: int, randoms: int, seed: int) -> List[int]:
    """Rank 0's destinations at scale: every rank of its node, the first rank of the nodes
    2^j nodes away either way (a torus's or a tree's neighbours in each dimension and level
    when they are powers of two), and `randoms` ranks drawn with `seed`; ascending."""
    per_node = max(1, min(per_node, n))
    nodes = -(-n // per_node)
    near = set(range(1, per_node))
    j = 1
    while j < nodes:
        near |= {j * per_node, (nodes - j) * per_node}
        j *= 2
    near = {r for r in near if 0 < r < n}
    rest = _Others(n, near)
    return sorted(near | set(random.Random(seed).sample(rest, min(randoms, len(rest)))))


class _Others(Sequence):
    """Ranks 1..n-1 but `near`, indexed without listing them: random.sample draws by index, so
    a sample costs its size, not n (a list of the ranks took 1 s a launch at 10^7 ranks), and
    draws the same ranks as from the list."""

    def __init__(self, n: int, near) -> None:
        self.n, self.near = n, sorted(near)

    def __len__(self) -> int:
        return self.n - 1 - len(self.near)

    def __getitem__(self, j: int) -> int:
        if not 0 <= j < len(self):
            raise IndexError(j)
        # below near[i] lie near[i] - 1 - i others: the j-th other follows the first i of near
        i = bisect.bisect_right(range(len(self.near)), j, key=lambda i: self.near[i] - 1 - i)
        return j + 1 + i


def _plan_distance(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    v = _real_nodes(v, ctx)
    specs = []
    for n in _rank_counts(v["nranks"], ctx, 2, 2, "distance"):
        if v["full"] and n > FULL_MATRIX_MAX_RANKS:
            raise UsageError(f"distance full=1 with {n} ranks is {n * (n - 1) // 2} pairs measured "
                             f"one at a time; the full matrix is limited to "
                             f"{FULL_MATRIX_MAX_RANKS} ranks (use full=0: rank 0 to every rank)")
        dests: List[int] = []
        if not v["full"] and 0 < v["sample-above"] < n:
            per_node = v["ranks-per-node"] or ctx.ranks_per_node(n)
            dests = distance_sample(n, per_node, v["sample"], v["seed"])
            ctx.note(f"distance np={n}: rank 0 to {len(dests)} of {n - 1} ranks (its node's, "
                     f"the nodes 2^j away, {v['sample']} drawn with seed {v['seed']}; "
                     f"sample-above={v['sample-above']})")
        pairs = n * (n - 1) // 2 if v["full"] else len(dests) or n - 1
        points = pairs * len(v["sizes"])
        args = _args(b, v, ("sizes", "full", "protocol", "ranks-per-node"))
        specs.append(LaunchSpec(b.name, f"distance np={n}", "distance",
                                args + (["--dests", ",".join(map(str, dests))] if dests else []),
                                n, "core", expected_results=2 * points,
                                timeout_s=launch_timeout(v, points)))
    return specs


register_benchmark(Benchmark(
    "distance", "communication",
    "distance map: ping-pong latency and bandwidth from rank 0 to every rank (full=1: every "
    "pair), with each end's node and CPU",
    options("distance", "sizes full protocol ranks-per-node buffer-pages", sizes=MESSAGES,
            # sendrecv is an exchange, not a ping-pong: the binary refuses it at run time
            protocol=dict(choices=tuple(p for p in PROTOCOLS if p != "sendrecv")))
    # The planner's sample (--dests): one pair at a time while the others wait, and at 1,024
    # simulated ranks every rank took more than 20 minutes (docs/simulate.md); a stated sample
    # keeps the hops visible.
    + (Param("sample-above", "int", 256, "beyond this many ranks rank 0 measures a sample: its "
             "node's ranks, the first rank of the nodes 2^j nodes away either way, and `sample` "
             "ranks drawn with `seed` (0: every rank always)", 0, 1 << 30),
       Param("sample", "int", 64, "ranks drawn at random into the sample", 0, 1 << 30),
       Param("seed", "int", 1, "seed of the sample's random draw", 0, (1 << 31) - 1),
       NRANKS),
    _plan_distance, ranks=">=2", memory=_two_buffers, tiny=("sizes=8",),
    # simulated: every rank joins a barrier after each pair (csrc/comm/distance.c): all busy
    sim_per_result_s={"": 0.005},
    headline="us, MB/s"))


def _plan_hotspot(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    specs = []
    for n in _rank_counts(v["nranks"], ctx, 2, 2, "hotspot"):
        check_memory(max(v["sizes"]) * n, ctx, "hotspot receive buffers")
        points = (n - 1) * len(v["sizes"])
        specs.append(LaunchSpec(b.name, f"hotspot np={n}", "hotspot",
                                _args(b, v, ("sizes", "window")), n, "core",
                                expected_results=points, timeout_s=launch_timeout(v, points)))
    return specs


register_benchmark(Benchmark(
    "hotspot", "communication",
    "hot spot: k = 1..n-1 senders stream to rank 0; aggregate bandwidth vs k",
    options("hotspot", "sizes window buffer-pages", sizes=MESSAGES) + (NRANKS,),
    _plan_hotspot, ranks=">=2",
    # rank 0 receives from every sender at once into a buffer each (csrc/comm/hotspot.c)
    memory=lambda spec, v: (spec.nranks * max(v["sizes"]) + harness_bytes(v),
                            v["window"] * max(v["sizes"]) + harness_bytes(v)),
    tiny=("sizes=1K",),
    # simulated: a 90 s simulated 64-rank study here
    sim_per_result_s={"": 0.04},
    headline="us, MB/s"))


def _plan_random2(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    specs = []
    for n in _rank_counts(v["nranks"], ctx, 2, 2, "random2"):
        if n % 2:
            raise UsageError(f"random2 needs an even number of ranks, {n} given")
        points = len(v["sizes"])
        specs.append(LaunchSpec(b.name, f"random2 np={n}", "random2",
                                _args(b, v, ("sizes", "seed")), n, "core",
                                expected_results=2 * points, timeout_s=launch_timeout(v, points)))
    return specs


register_benchmark(Benchmark(
    "random2", "communication",
    "random pairs (SP2 random2): evens ping-pong with a random odd, all at once; slowest pair",
    options("random2", "sizes seed buffer-pages", sizes=MESSAGES) + (NRANKS,),
    _plan_random2, ranks="even, >=2", memory=_two_buffers, tiny=("sizes=8",),
    # a budget's top rung: one variant of each choice (budget.py's tops)
    at_scale=("sizes=8,64K",), seed_curve=True,
    # simulated: a 90 s simulated 64-rank study here
    sim_per_result_s={"": 0.033},
    headline="us, MB/s"))


# ---------------------------------------------------------------- halo

def _plan_halo(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    methods = v["methods"]
    neigh = v["neighbours"]
    if max(v["widths"]) > v["tile"]:
        raise UsageError(f"--set widths: a ghost width ({max(v['widths'])}) larger than the tile "
                         f"({v['tile']})")
    specs = []
    for n in _rank_counts(v["nranks"], ctx, 2, 1, "halo"):
        points = len(methods) * len(neigh) * len(v["widths"])
        args = (_args(b, v, ("tile", "widths"))
                + ["--methods", ",".join(methods), "--neighbours", ",".join(neigh)])
        specs.append(LaunchSpec(b.name, f"halo np={n}", "halo", args, n, "core",
                                expected_results=2 * points, timeout_s=launch_timeout(v, points)))
    return specs


register_benchmark(Benchmark(
    "halo", "communication",
    "halo exchange on a periodic 2-D process grid: 4/8 neighbours, ghost widths, packed buffers "
    "vs derived datatypes vs one-sided puts",
    options("halo", "tile widths neighbours methods buffer-pages") + (NRANKS,),
    _plan_halo, ranks=">=1",
    # the tile with its widest ghost ring, its copy, and packed edges of the ghost width
    memory=lambda spec, v: (3 * 8 * (v["tile"] + 2 * max(v["widths"])) ** 2
                            + harness_bytes(v)),
    tiny=("tile=16", "widths=1", "neighbours=4", "methods=pack,datatype,put"),
    # a budget's top rung: one variant of each choice (budget.py's tops)
    at_scale=("methods=pack", "widths=1,8"), seed_curve=True,
    # simulated: the 256- and 1,024-rank studies of 2026-12-07 here, SMPI 3.32 (benchmarks/
    # study_run.py's costs)
    # (0.053 in a 90 s 64-rank study before: every launch of 2-16 ranks outran it 3x)
    sim_per_result_s={"": 0.18},
    headline="us, MB/s"))


# ---------------------------------------------------------------- the suite

_FAST = {"budget": "0.05", "ci-target": "0.03", "max-reps": "200"}
register_suite(Suite(
    "comm", "the communication suite: ping-pong, LogGP parameters, the eager limit, every protocol and mode "
    "0 B..4 MiB, placement patterns, "
    "distance map, hot spot, random2, message rate, collectives vs size and ranks, non-blocking "
    "collectives' overlap, one-sided by synchronisation mode, halo (a few "
    "minutes, 2-4 ranks; cross-node patterns emulate 2 nodes with ranks-per-node=2, or use the "
    "real nodes of a run that spans nodes; the distance map from rank 0 at the run's rank count)",
    # loggp, eager, msgrate, nbc and rma join it from their own modules (join_suite)
    (("pingpong", {"budget": "0.2", "ci-target": "0.02"}),
     ("p2p", {**_FAST, "modes": "all", "protocols": "all", "patterns": "0-1"}),
     ("p2p", {**_FAST, "modes": "pingpong,swap", "protocols": "send,sendrecv,isend",
              "patterns": "intra-pairs,0-k,ring,cross-pairs", "sizes": "8,1K,64K,1M",
              "ranks-per-node": "2", "nranks": "4"}),
     ("distance", {**_FAST, "full": "1", "ranks-per-node": "2", "nranks": "4"}),
     # At the run's own rank count (--np, --nodes x --ppn): rank 0 to every rank, O(P) pairs.
     # The rank x rank matrix stays at 4 ranks (opt-in beyond: distance full=1).
     ("distance", {**_FAST, "nranks": "np"}),
     ("hotspot", {**_FAST, "nranks": "4"}),
     ("random2", {**_FAST, "nranks": "4"}),
     ("collectives", {**_FAST, "nranks": "2,4"}),
     ("halo", {**_FAST, "nranks": "2,4"}))))


# ---------------------------------------------------------------- the study
# On every rung of the allocation's ladder (hpceval/catalog/ladder.py): collectives, random
# pairs and the halo at 1 .. N x K ranks; the COMMTEST patterns on two whole nodes with all K
# ranks of each (emulated only on one node); hot spot with up to K senders in a node and across
# two nodes; the distance map from rank 0 to every rank of the whole allocation (O(P) pairs).
_STUDY = {"budget": "0.05", "ci-target": "0.03", "max-reps": "200"}
register_study("pingpong", budget=0.2, ci_target=0.02)
register_study("p2p", **_STUDY, modes="all", protocols="all", patterns="0-1", nranks=2)
register_study("p2p", **_STUDY, modes="pingpong,swap", protocols="send,isend",
               patterns="intra-pairs,0-k,ring,cross-pairs", sizes="8,1K,64K,1M",
               ranks_per_node=2, nranks="cross")
register_study("distance", **{**_STUDY, "budget": "0.01"}, nranks="full>=2")
register_study("hotspot", **_STUDY, nranks="node>=2,cross")
register_study("random2", **_STUDY, nranks="ladder>=2")
register_study("collectives", **_STUDY, nranks="ladder")
# One-sided puts are left to the halo benchmark itself: Open MPI 4.1's RMA over TCP (no RDMA
# transport) fails in MPI_Win_allocate across nodes, which would fail the whole study there.
register_study("halo", **_STUDY, methods="pack,datatype", nranks="ladder")
