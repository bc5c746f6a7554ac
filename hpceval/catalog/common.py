"""Planning helpers the benchmarks share (their parameters come from the binaries: options.py)."""
from __future__ import annotations

import dataclasses
import re
from typing import Any, Dict, List, Optional, Tuple

from hpceval.catalog.options import COMMON
from hpceval.catalog.params import INT_MAX, Param, ascii_int
from hpceval.catalog.registry import LaunchSpec, PlanContext
from hpceval.errors import UsageError
from hpceval.limits import MAX_RANKS

REPETITION_NAMES = COMMON


def min_nodes(what: str, most: int, fewer: str) -> Param:
    """`min-nodes` of a benchmark run one rank a node: a planner's parameter."""
    return Param("min-nodes", "int", 0, f"nodes {what} needs, else it is left out with a note "
                 f"(0: {fewer})", 0, most)


def ranks_sweep(alone: int = 2, note: str = "", ladder: bool = False) -> Param:
    """The `ranks` of a benchmark launched once per rank count (rank_counts): a planner's
    parameter, no binary's option. alone: the ranks without --np; note: what a count must be."""
    return Param("ranks", "str", "", f"rank counts to sweep{note}, comma-separated, 'max' = all "
                 f"cores{', or a ladder' if ladder else ''} (empty: --np, else {alone})")


RANKS_SWEEP = ranks_sweep(note=" (2 or more)", ladder=True)

# The refinement options of the benchmarks that bracket protocol switches, pingpong and eager
# (csrc/comm/lib/refine.h, COMM_REFINE_OPTIONS).
REFINEMENT_NAMES = ("refine", "refine-tol", "resolution")


def repetition_args(bench, values: Dict[str, Any]) -> List[str]:
    """The repetition options, and --buffer-pages where a benchmark takes it and base is asked
    for (the default changes no command line)."""
    args: List[str] = []
    for name in REPETITION_NAMES:
        if name == "inject" and values[name] == "none":
            continue
        args += bench.param(name).to_arg(values[name])
    if values.get("buffer-pages", "thp") != "thp":
        args += bench.param("buffer-pages").to_arg(values["buffer-pages"])
    return args


TIMEOUT_FIXED_S = 60.0      # start-up allowance of every launch's time limit
TIMEOUT_FACTOR = 3.0        # the limit allows the planned measuring time this many times over

# The largest message a point-to-point benchmark times (its `sizes` maximum): what a launch can
# time within the start-up allowance of its limit (TIMEOUT_FIXED_S), whatever its budget. A
# point is warm-up + min-reps samples, each preparing, moving and checking the buffers: pingpong
# at 64 MiB took 10 s on a loaded 2-core VM, at 256 MiB 57 s, at 1 GiB past its 135 s limit.
MAX_MESSAGE = 64 << 20
# A `sizes` option narrowed so (options.options(..., sizes=MESSAGES)).
MESSAGES = dict(max=MAX_MESSAGE)


def launch_timeout(values: Dict[str, Any], points: int, fixed_s: float = TIMEOUT_FIXED_S) -> float:
    """A generous limit: every point may spend its whole budget, three times over, plus start-up.
    A hung rank is killed after this."""
    return fixed_s + TIMEOUT_FACTOR * float(values["budget"]) * max(points, 1)


def simulated_limit(spec: LaunchSpec, ctx: PlanContext) -> LaunchSpec:
    """A simulated launch's time limit raised to cover SMPI's wall time for it (ctx.sim_cost:
    a result's cost on this host, hpceval/simulate/cost.py), TIMEOUT_FACTOR times over: one
    process runs every rank's messages, so 100 simulated nodes map in minutes, not seconds."""
    if ctx.sim_cost is not None:
        if spec.estimate_s is None:     # the measuring time planned, kept as the estimate
            spec.estimate_s = planned_seconds(spec)
        wall = ctx.sim_cost.startup_s(spec.nranks) + ctx.sim_cost.measure_s(
            spec.benchmark, spec.label, spec.nranks, spec.expected_results, spec.estimate_s)
        spec.timeout_s = max(spec.timeout_s, TIMEOUT_FIXED_S + TIMEOUT_FACTOR * wall)
    return spec


def planned_seconds(spec: LaunchSpec) -> float:
    """The measuring time a launch was planned for (every point spending its whole budget, plus
    what a planner added for long single runs): its time limit without the allowances."""
    return max(spec.timeout_s - TIMEOUT_FIXED_S, 0.0) / TIMEOUT_FACTOR


# Default working sets (4x the last-level cache, STREAM's rule) take at most this share of the
# memory available, all arrays together; an explicit size is refused only beyond 80%
# (check_memory).
DEFAULT_MEMORY_SHARE = 0.25


def default_bytes(want: int, ctx: PlanContext, arrays: int = 1) -> int:
    """A default working set of `want` bytes per array, capped so that `arrays` of them fit in
    DEFAULT_MEMORY_SHARE of the available memory (at least 1 MiB)."""
    if not ctx.mem_available_bytes:
        return want
    return max(min(want, int(DEFAULT_MEMORY_SHARE * ctx.mem_available_bytes / arrays)), 1 << 20)


def again_label(label: str, what: str = "") -> str:
    """The label of a re-measuring launch: one "(... again)" suffix however many rounds."""
    return f"{re.sub(r' [(](?:[0-9]+ B )?again[)]$', '', label)} ({what}again)"


def narrow_sizes(spec: LaunchSpec, params: Dict[str, Any]) -> Optional[LaunchSpec]:
    """Re-measure one size of a --sizes sweep: the same launch with --sizes <bytes>."""
    if "--sizes" not in spec.args or not isinstance(params.get("bytes"), int):
        return None
    args = list(spec.args)
    args[args.index("--sizes") + 1] = str(params["bytes"])
    return dataclasses.replace(spec, args=args, label=again_label(spec.label, f"{params['bytes']} B "),
                               expected_results=1, timeout_s=min(spec.timeout_s, 120.0))


def narrow_whole(spec: LaunchSpec, params: Dict[str, Any]) -> Optional[LaunchSpec]:
    """A launch whose points share their repetitions (STREAM's four kernels) runs again whole."""
    return dataclasses.replace(spec, label=again_label(spec.label))


def pow2_sizes(lo: int, hi: int, midpoints: bool = False) -> List[int]:
    sizes, s = [], lo
    while s <= hi:
        sizes.append(s)
        if midpoints and s + s // 2 <= hi and s >= 2:
            sizes.append(s + s // 2)
        s *= 2
    return sizes


def words(text: Any, allowed, what: str, *, all_ok: bool = False) -> List[str]:
    """A comma-separated --set list of names, each one of `allowed` (None: any name); with
    all_ok, 'all' stands for every allowed name. Duplicates dropped, order kept."""
    items = [w.strip() for w in str(text).split(",") if w.strip()]
    if not items:
        raise UsageError(f"--set {what}: empty list")
    if all_ok and "all" in items:
        return list(allowed)
    for w in items:
        if allowed is not None and w not in allowed:
            raise UsageError(f"--set {what}: '{w}' is not one of {', '.join(allowed)}"
                             + (", all" if all_ok else ""))
    return list(dict.fromkeys(items))


def int_item(item: str, what: str, noun: str, lo: int = 1, hi: int = 4096,
             accepted: str = "") -> int:
    """One integer of a --set list, in [lo, hi]; accepted names the words allowed besides."""
    try:
        n = ascii_int(item)
    except ValueError:
        raise UsageError(f"--set {what}: '{item}' is not a {noun}{accepted}") from None
    if not lo <= n <= hi:
        raise UsageError(f"--set {what}: {n} is out of range [{lo}, {hi}]")
    return n


def counts(text: Any, cores: int, what: str, noun: str, *, sweep: bool = False) -> List[int]:
    """Thread, copy or rank counts: '1,max' -> [1, cores]; with sweep, 'sweep' -> 1, 2, 4, ...
    cores."""
    out: List[int] = []
    for item in words(text, None, what):
        if item in ("max", "all"):
            out.append(cores)
        elif sweep and item == "sweep":
            out += pow2_sizes(1, cores) + [cores]
        else:
            out.append(int_item(item, what, noun, hi=MAX_RANKS,
                                accepted=", 'max' or 'sweep'" if sweep else " or 'max'"))
    return sorted(set(out))




def int_tuple(text: str, what: str, form: str, n: int) -> Tuple[int, ...]:
    """'30x30x15' -> (30, 30, 15): a --set value of the form AxB(xC...) of n positive integers."""
    try:
        items = tuple(ascii_int(x) for x in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"--set {what}: '{text}' is not {form}") from None
    if len(items) != n:
        raise UsageError(f"--set {what}: '{text}' is not {form}")
    if min(items) < 1:
        raise UsageError(f"--set {what}: '{text}' is not {form} with positive numbers")
    if max(items) > INT_MAX:
        raise UsageError(f"--set {what}: '{text}': {max(items)} is more than {INT_MAX}")
    return items


def int_pair(text: str, what: str, form: str) -> Tuple[int, int]:
    """'96x64' -> (96, 64): a --set value of the form AxB with positive integers."""
    a, b = int_tuple(text, what, form, 2)
    return a, b


SQUARE_GRIDS = 2      # pgrids=square: the most nearly square grids that fit, this many


def process_grids(text: str, n: int, what: str, sweep: bool = True,
                  fits=None) -> List[Tuple[int, int]]:
    """Process grids P x Q for n ranks: 'all' (every P x Q = n), 'square' (the most nearly
    square ones that `fits`, a predicate of (P, Q): what a study runs at thousands of ranks),
    'squarest' (the one most nearly square: a budget's top rung, Benchmark.at_scale) or
    those of the list that fit; outside a sweep over rank counts (sweep False) a listed grid
    that does not fit n is an error of its own."""
    if text == "all":
        return [(p, n // p) for p in range(1, n + 1) if n % p == 0]
    if text in ("square", "squarest"):
        return _square_grids(n, what, fits)[:1 if text == "squarest" else SQUARE_GRIDS]
    grids = list(dict.fromkeys(int_pair(item, what, "PxQ") for item in words(text, None, what)))
    for p, q in grids:
        if p * q != n and not sweep:
            raise UsageError(f"--set {what}: {p}x{q} does not fit {n} ranks (--np)")
    fit = [g for g in grids if g[0] * g[1] == n]
    if not fit:
        raise UsageError(f"--set {what}: none of {text} fits {n} ranks")
    return fit


def _square_grids(n: int, what: str, fits) -> List[Tuple[int, int]]:
    grids = []
    p = 1
    while p * p <= n:                  # O(sqrt n): planning stays fast at a million ranks
        if n % p == 0:
            grids += [(p, n // p), (n // p, p)]
        p += 1
    grids = [g for g in dict.fromkeys(grids) if fits is None or fits(*g)]
    if not grids:
        raise UsageError(f"--set {what}: no process grid of {n} ranks fits the problem")
    grids.sort(key=lambda g: (max(g) / min(g), g))
    return grids


PARALLEL_EFFICIENCY = 0.5    # what a time limit assumes of a parallel run: pessimistic


def parallel_seconds(serial_s: float, nranks: int, ctx: PlanContext) -> float:
    """A pessimistic time for work that takes serial_s on one core, spread over nranks: the
    cores it really gets (K ranks a node fill ceil(n/K) nodes of ctx.cores cores; ranks beyond
    the cores share them) at PARALLEL_EFFICIENCY. What lets a plan's estimate fall with the
    ranks in a strong-scaling ladder."""
    cores = min(nranks, ctx.cores * -(-nranks // ctx.per_node))
    return serial_s if cores <= 1 else serial_s / (PARALLEL_EFFICIENCY * cores)


def expected_seconds(values: Dict[str, Any], points: int, sample_s: float) -> float:
    """What a launch is expected to take, start-up aside: every point measures at least
    warm-up + min-reps samples of sample_s (a typical sample, not the time limit's pessimistic
    one), and goes on until its budget is spent."""
    reps = int(values.get("warmup", 0)) + int(values.get("min-reps", 1))
    return max(points, 1) * max(float(values["budget"]), reps * sample_s)


def pair_ranks(ctx: PlanContext) -> int:
    """Ranks of a launch that measures one pair (ranks 0 and 1): --np or the allocation's, but
    at most two whole nodes: on a big allocation the other ranks would only idle (and start)."""
    n = ctx.nranks or 2
    return min(n, 2 * ctx.per_node) if ctx.nodes > 1 else n


def rank_counts(text: Any, ctx: PlanContext) -> List[int]:
    """A `ranks` sweep: comma-separated counts, 'max' = all cores; empty: --np, else 2."""
    if not str(text).strip():
        return [ctx.nranks or 2]
    return counts(text, ctx.cores, "ranks", "rank count")


def fits_memory(need: int, ctx: PlanContext) -> bool:
    """A node's ranks may hold `need` bytes together (80% of its available memory)."""
    return not ctx.mem_available_bytes or need <= 0.8 * ctx.mem_available_bytes


def fits_host(need: int, nranks: int, ctx: PlanContext) -> bool:
    """A simulated launch's ranks all live in this host's memory (SimGrid has none of its
    own): `need` bytes each, together within DEFAULT_MEMORY_SHARE of it."""
    return not ctx.host_memory_bytes or need * nranks <= DEFAULT_MEMORY_SHARE * ctx.host_memory_bytes


def spec_arg(spec: LaunchSpec, option: str) -> Optional[str]:
    """The value a planned launch passes for `option` (None: not passed)."""
    args = spec.args
    return args[args.index(option) + 1] if option in args[:-1] else None


def harness_bytes(values: Dict[str, Any]) -> int:
    """A rank's memory besides its benchmark's own arrays: the sampler's kept samples (two
    doubles each, max-reps of them) and a few MiB of harness and records."""
    return 16 * int(values.get("max-reps", 1000)) + (8 << 20)


def check_memory(need: int, ctx: PlanContext, what: str) -> None:
    # Refuse before launching: a working set beyond memory would swap or be OOM-killed.
    if not fits_memory(need, ctx):
        raise UsageError(f"{what} needs {need / 2**30:.1f} GiB but only "
                         f"{ctx.mem_available_bytes / 2**30:.1f} GiB of memory is available")
