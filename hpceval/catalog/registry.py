"""The benchmark and suite registries. A benchmark turns settings into launches; a suite is a
named list of benchmarks with settings. New benchmarks register themselves here (no if-chains)."""
from __future__ import annotations

import string
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from hpceval.catalog.ladder import RankRule
from hpceval.catalog.params import Param
from hpceval.errors import UsageError


@dataclass
class PlanContext:
    """What planning needs to know about the machine and the request."""
    cores: int
    llc_bytes: int
    mem_available_bytes: int
    nranks: int | None = None        # --np, None: the benchmark's default
    nodes: int = 1                   # nodes the run spans (--nodes/--hosts, Slurm); 1: this machine
    ppn: int | None = None           # ranks per node when placed on nodes (--ppn)
    thin: int = 0                    # rank ladders keep every 2^thin-th rung (a short budget)
    reach: int = 0                   # rank ladders drawn for nodes / 2^reach nodes (at least 2)
    fewer_reps: bool = False         # repetitions cut to REPS_LEAN (a short budget)
    budget_scale: float = 1.0        # every point's time budget scaled to fit a run's --budget
    launch_s: Optional[float] = None  # a launch's start-up as measured here (None: the model's)
    startup_fit: Any = None          # a launch's start-up fitted to earlier ones (budget.py)
    simulated: bool = False          # the allocation is a simulated platform (SMPI)
    host_memory_bytes: int = 0       # simulated: this host's memory, which every rank shares
    sim_cost: Any = None             # simulated: a launch's wall time (hpceval/simulate/cost.py)
    # Why this build cannot run a binary (None: it can), for plan.py to leave out before fitting
    unbuilt: Optional[Callable[[str], Optional[str]]] = None
    notes: List[str] = field(default_factory=list)   # what the plan left out, and why
    areas: List[Dict[str, Any]] = field(default_factory=list)  # a budgeted plan's areas

    def ranks_per_node(self, nranks: int) -> int:
        """Ranks of an n-rank launch that share one node's memory."""
        return min(nranks, self.ppn) if self.ppn else nranks

    @property
    def per_node(self) -> int:
        """K: the ranks a node holds (--ppn, the allocation's tasks per node, else its cores)."""
        return self.ppn or self.cores

    @property
    def ladder_nodes(self) -> int:
        """The nodes rank ladders are drawn for: all of them, or fewer (down to two) where a
        short budget lowers their reach."""
        return max(min(self.nodes, 2), self.nodes >> self.reach)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


@dataclass
class LaunchSpec:
    benchmark: str
    label: str                       # shown in progress and stored, e.g. "stream threads=2"
    binary: str                      # binary name without the hpceval- prefix
    args: List[str]
    nranks: int
    bind: str                        # core | none: what the launcher asks the MPI runtime for
    env: Dict[str, str] = field(default_factory=dict)
    expected_results: int = 0        # for the progress display
    timeout_s: float = 600.0
    trace: bool = False              # run under the PMPI trace library; the trace is stored
    # What the launch is expected to take, start-up aside (its time limit is pessimistic by
    # design); None: the planned measuring time (hpceval/catalog/estimate.py)
    estimate_s: Optional[float] = None
    startup_s: Optional[float] = None  # its start-up as the plan saw it (None: the model's)
    # Simulated: the wall time SMPI takes for its measuring (None: a real launch's, estimate_s)
    simulated_s: Optional[float] = None
    # Ranks a node where fewer than the allocation's K: a rung its benchmark's rank rule placed
    # so (hpceval/catalog/ladder.py: 128 ranks as 2 nodes x 64); None: K a node
    ppn: Optional[int] = None


@dataclass(frozen=True)
class Scales:
    """How an application proxy's records scale (hpceval/analysis/scaling.py: strong and weak
    scaling, the overhead breakdown, the report's scaling figures): plain data.

    A label is a str.format template over a record's params; `{name:(?)}` writes "(value)",
    or nothing when the value is 0 or missing (a tree's branching factor)."""
    metric: str                      # its time per unit of work
    unit: str                        # the time column's heading ("µs/iter")
    variant: Tuple[str, ...] = ()    # params that make a variant (a series of its own)
    variant_label: str = ""          # a variant's name ("S{sn} mk={mk} mmi={mmi}")
    problem: Tuple[str, ...] = ()    # params that make the problem (strong scaling)
    seed_axes: Tuple["SeedAxis", ...] = ()   # as the seeds drew it against processors


@dataclass(frozen=True)
class SeedAxis:
    """A quantity a seed study drew against processors for this proxy, read from the records of
    the best variant at each rung (hpceval/views/figures_scaling.py): the record of `metric`
    beside the time record, shown as `label`. per: "" the value; "processor": the value over
    the rung's ranks; "inverse": `scale` / value (wall seconds per simulated day from simulated
    days per day). `seed` names the figure it mirrors."""
    metric: str
    label: str
    seed: str
    per: str = ""
    scale: float = 1.0


@dataclass(frozen=True)
class Tunes:
    """What `hpceval tune` measures of a proxy (hpceval/analysis/tune.py): plain data."""
    metric: str
    problem: Tuple[str, ...]         # params that make the problem
    choices: Tuple[str, ...]         # params that make an algorithm choice
    sweep: Tuple[str, ...]           # --set settings (NAME=VALUE) that measure every choice
    label: str                       # a choice as a user reads it (a template, as Scales')


class _Template(string.Formatter):
    def get_value(self, key, args, kwargs):
        return kwargs.get(key)

    def format_field(self, value, spec):
        if "?" in spec:
            return spec.replace("?", str(value)) if value else ""
        return "" if value is None else format(value, spec)


def fill(template: str, params: Dict[str, Any]) -> str:
    """A Scales or Tunes label of a record's params: "{halo}/{sum}{branch:(?)}" ->
    "pack/tree(4)", or "pack/allreduce" when branch is 0; a missing param is empty."""
    return _Template().format(template, **params)


@dataclass(frozen=True)
class Benchmark:
    name: str
    area: str
    description: str
    params: Tuple[Param, ...]
    planner: Callable[["Benchmark", Dict[str, Any], PlanContext], List[LaunchSpec]]
    ranks: str = "1"                 # how many ranks it uses, for `hpceval list`
    # The launch that measures one point of `spec` again (a disturbed or unconverged headline),
    # from that point's record params; None: the benchmark cannot re-measure a single point.
    narrow: Optional[Callable[[LaunchSpec, Dict[str, Any]], Optional[LaunchSpec]]] = None
    # Its default working sets follow the last-level cache: the runner checks the reported
    # size with a quick probe before planning it (hpceval/runner/llcprobe.py).
    sized_by_llc: bool = False
    # Relations between parameters that their declarations cannot say (sigma-s below sigma-t,
    # one value per region): raises UsageError; called before planning.
    check: Optional[Callable[[Dict[str, Any]], None]] = None
    # Bytes each rank of a planned launch may need at most, from the launch and the settings:
    # a launch whose ranks on one node would not fit its available memory is refused after
    # planning, before anything runs (MEMORY_SHARE).
    memory: Optional[Callable[[LaunchSpec, Dict[str, Any]], float]] = None
    # --set settings that make the benchmark's launches last a second or so with otherwise its
    # defaults (tests/catalog/test_defaults_run.py runs every benchmark with them).
    tiny: Tuple[str, ...] = ()
    # --set settings a short budget gives its costliest entry before that entry loses its small
    # rungs or is left out (hpceval/catalog/budget.py): a smaller problem, still the same curve
    lean: Tuple[str, ...] = ()
    # --set settings of its top rung where a short budget draws its ladder for fewer nodes and
    # measures that rung alone beyond them (budget.py's tops): one variant of each choice, so
    # that its curve still reaches the whole allocation
    at_scale: Tuple[str, ...] = ()
    # One of the seeds' curves against processors (issue 45's headline curves): a short
    # budget's top rungs raise it before the others' (tops.py)
    seed_curve: bool = False
    # An application proxy's scaling (hpceval/analysis/scaling.py), tuning (`hpceval tune`) and
    # application model (`hpceval predict`: the module hpceval/analysis/predict/<model>.py,
    # docs/models.md); None/"": it has none.
    scales: Optional[Scales] = None
    tunes: Optional[Tunes] = None
    model: str = ""
    # The rank counts it runs on, from its settings (NPB's powers of two, PS's torus
    # divisors): its ladders' rungs across nodes take fewer ranks a node where K breaks the
    # rule (hpceval/catalog/ladder.py); None: any count
    rank_rule: Optional[Callable[[Dict[str, Any]], RankRule]] = None
    # A simulated launch's wall seconds per result per busy rank on this host where the store
    # has learned none (hpceval/simulate/cost.py), by kind: "" the benchmark's launches, else a
    # label's words before ' np=' ("p2p 0-1"); measured here, a 2-core VM, SMPI 3.32
    sim_per_result_s: Mapping[str, float] = field(default_factory=dict)
    # The ranks whose work costs the simulation wall time where not every rank's, by kind as
    # above: 2 where one pair measures while the others wait blocked (a rank blocked in SMPI
    # costs nothing), a result's own ranks where the results are measured one after another
    sim_busy_ranks: Mapping[str, int] = field(default_factory=dict)
    # How a result's cost a busy rank moves from a rung learned to one not learned yet, n ranks
    # from q: x (q / n) ** sim_trend (cost.TREND where None, a slow fall). A benchmark whose
    # simulation grows faster than SMPI's cost a message declares its own (nbc: P^2 flows a call)
    sim_trend: Optional[float] = None
    # What docs/benchmarks.md's table says of it (`hpceval list --markdown` writes the table):
    # its headline metric and statistic, and its own page under docs/ ("" where it has none)
    headline: str = ""
    doc: str = ""

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def has_param(self, name: str) -> bool:
        return any(p.name == name for p in self.params)

    @property
    def rank_param(self) -> Optional[str]:
        """The parameter that holds its rank counts (and may hold ladder words), if any."""
        return next((n for n in ("ranks", "nranks") if self.has_param(n)), None)

    def rank_text(self, values: Dict[str, Any]) -> Optional[str]:
        """Its rank parameter's text in `values` (or its default); None: it has none."""
        rp = self.rank_param
        return None if rp is None else values.get(rp, self.param(rp).default)

    def settings(self, values: Dict[str, Any]) -> Dict[str, Any]:
        """Its parameters' values: the declared defaults, then `values` (parsed; a value still
        in its --set text, as a test or a caller may pass it, is parsed here)."""
        given = {k: self.param(k).parse(v) if isinstance(v, str) and self.has_param(k)
                 and self.param(k).kind != "str" else v for k, v in values.items()}
        return {**{p.name: p.initial for p in self.params}, **given}

    def plan(self, values: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
        merged = self.settings(values)
        # the relations the binary's table declares (Param.at_most), before anything launches
        for p in self.params:
            if p.at_most and self.has_param(p.at_most) and merged[p.name] > merged[p.at_most]:
                raise UsageError(f"{self.name}: {p.name} {merged[p.name]} is larger than "
                                 f"{p.at_most} {merged[p.at_most]}")
        if self.check:
            self.check(merged)
        specs = self.planner(self, merged, ctx)
        if self.memory:
            specs = [s for s in specs if fits_this_host(s, self.memory(s, merged), ctx)]
            for spec in specs:
                check_fits(spec, self.memory(spec, merged), ctx)
        return specs


# A launch's ranks on one node may take this share of its available memory at most (the rest:
# the OS, the MPI runtime, page cache); the same bound as common.check_memory.
MEMORY_SHARE = 0.8


def _gib(n: float) -> str:
    return f"{n / 2**30:.1f} GiB" if n >= 2**30 / 10 else f"{n / 2**20:.0f} MiB"


def node_bytes(per_rank, ranks: int) -> float:
    """What `ranks` ranks need together: per_rank each, or (rank 0's, each other rank's)."""
    first, other = per_rank if isinstance(per_rank, tuple) else (per_rank, per_rank)
    return first + other * (ranks - 1)


def fits_this_host(spec: LaunchSpec, per_rank, ctx: PlanContext) -> bool:
    """A simulated launch's ranks all live in this host's one process (SMPI: every rank a
    context of it), together within MEMORY_SHARE of its memory; one that would not is left out
    with a note (psst at T170 on 64 simulated ranks was killed by the kernel, out of memory,
    where its 64 x 16 simulated nodes held it easily)."""
    need = node_bytes(per_rank, spec.nranks)
    if not ctx.host_memory_bytes or need <= MEMORY_SHARE * ctx.host_memory_bytes:
        return True
    ctx.note(f"{spec.label}: left out: its {spec.nranks} simulated ranks need about "
             f"{_gib(need)}, in one process of this host's {_gib(ctx.host_memory_bytes)}")
    return False


def check_fits(spec: LaunchSpec, per_rank, ctx: PlanContext) -> None:
    """Refuse a launch whose ranks on one node need more than MEMORY_SHARE of the memory
    available (it would swap, be OOM-killed, or take the machine down with it). per_rank: the
    bytes of every rank, or (rank 0's, each other rank's) where rank 0 holds global arrays
    the others do not (a gathered field, a reference solution): rank 0's node is the fullest."""
    if not ctx.mem_available_bytes:
        return
    ranks = min(spec.ppn, ctx.ranks_per_node(spec.nranks)) if spec.ppn else \
        ctx.ranks_per_node(spec.nranks)       # a launch placed with fewer a node says so
    need = node_bytes(per_rank, ranks)
    per_rank = max(per_rank) if isinstance(per_rank, tuple) else per_rank
    if need > MEMORY_SHARE * ctx.mem_available_bytes:
        each = f" ({ranks} ranks x {_gib(per_rank)})" if ranks > 1 else ""
        raise UsageError(f"{spec.label}: needs about {_gib(need)}{each} but only "
                         f"{_gib(ctx.mem_available_bytes)} of memory is available")


@dataclass(frozen=True)
class Suite:
    name: str
    description: str
    entries: Tuple[Tuple[str, Dict[str, Any]], ...]   # (benchmark, settings as --set text)


BENCHMARKS: Dict[str, Benchmark] = {}
SUITES: Dict[str, Suite] = {}
# The study's entries (`hpceval run study`): each benchmark's catalog module says how it joins
# the whole study, with rank ladders drawn from the allocation (hpceval/catalog/ladder.py).
STUDY: List[Tuple[str, Dict[str, Any]]] = []


def _unique(what: str, name: str) -> None:
    """One declaration per name: a second would silently replace the first."""
    if name in BENCHMARKS or name in SUITES:
        raise ValueError(f"{what} '{name}' is declared twice (benchmark and suite names are one "
                         "namespace)")


def register_benchmark(b: Benchmark) -> Benchmark:
    _unique("benchmark", b.name)
    BENCHMARKS[b.name] = b
    return b


def sim_declared() -> Tuple[Dict[str, float], Dict[str, int]]:
    """Every benchmark's declared simulation costs, by kind: (seconds a result a busy rank,
    busy ranks) as hpceval/simulate/cost.py takes them."""
    per: Dict[str, float] = {}
    busy: Dict[str, int] = {}
    for b in BENCHMARKS.values():
        per.update({k or b.name: v for k, v in b.sim_per_result_s.items()})
        busy.update({k or b.name: v for k, v in b.sim_busy_ranks.items()})
    return per, busy


def sim_trends() -> Dict[str, float]:
    """The benchmarks' own trends (Benchmark.sim_trend), by each of their kinds."""
    return {k or b.name: b.sim_trend for b in BENCHMARKS.values() if b.sim_trend is not None
            for k in (b.sim_per_result_s or {"": 0.0})}


def sim_cost_model(start_s: float, per_rank_s: float, learned: Optional[Dict[str, float]] = None,
                   fine: Any = None):
    """hpceval/simulate/cost.py's model with these start-up costs, every benchmark's declared
    costs and `learned` over them, by kind (and `fine`, a cost.Learned: by problem and rung):
    a planning test's, or a dry run's without a store."""
    from hpceval.simulate.cost import GROWTH_LIST, SimCost
    per, busy = sim_declared()
    return SimCost(start_s, per_rank_s, {**per, **(learned or {})}, busy, learned or {},
                   GROWTH_LIST, fine, trends=sim_trends())


def register_suite(s: Suite) -> Suite:
    _unique("suite", s.name)
    SUITES[s.name] = s
    return s


def _texts(settings: Dict[str, Any]) -> Dict[str, str]:
    """Keyword settings as --set text (names with '_' for '-')."""
    return {k.replace("_", "-"): str(v) for k, v in settings.items()}


# Entries a benchmark's own module adds to a suite declared elsewhere (join_suite): the suite
# gets them, after its declared ones, once every module is loaded (finish_suites).
JOINED: Dict[str, List[Tuple[str, Dict[str, str]]]] = {}


def join_suite(suite: str, benchmark: str, **settings: Any) -> None:
    """The benchmark joins `suite` with these settings (--set text; keyword names with '_'
    for '-'): its membership declared beside the benchmark, not in the suite's list."""
    JOINED.setdefault(suite, []).append((benchmark, _texts(settings)))


def finish_suites() -> List[str]:
    """Every suite with the entries its members' modules joined it with (catalog/__init__);
    returns what joined a suite nobody declared, one line each."""
    unknown = []
    for name, joined in JOINED.items():
        if name not in SUITES:
            unknown.append(f"join_suite: {', '.join(b for b, _ in joined)} joins suite "
                           f"'{name}', which is not declared")
            continue
        s = SUITES[name]
        SUITES[name] = Suite(s.name, s.description, s.entries + tuple(joined))
    return unknown


def register_study(benchmark: str, **settings: Any) -> None:
    """An entry of the study: the benchmark with these settings (--set text; keyword names
    with '_' for '-')."""
    STUDY.append((benchmark, _texts(settings)))


def resolve_targets(names: Sequence[str]) -> List[Tuple[Benchmark, Dict[str, str]]]:
    """Suite and benchmark names -> (benchmark, settings) pairs, in order."""
    out: List[Tuple[Benchmark, Dict[str, str]]] = []
    for name in names:
        if name in SUITES:
            for bname, settings in SUITES[name].entries:
                out.append((BENCHMARKS[bname], dict(settings)))
        elif name in BENCHMARKS:
            out.append((BENCHMARKS[name], {}))
        else:
            known = ", ".join(sorted(SUITES) + sorted(BENCHMARKS))
            raise UsageError(f"unknown suite or benchmark '{name}' (known: {known})")
    return out
