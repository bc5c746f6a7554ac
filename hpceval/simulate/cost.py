"""What a simulated launch costs in wall time (#45 item 2). SMPI runs every rank of a launch as
a context of one single-threaded process, so a launch's wall time is not its simulated time:

    wall = start + start_per_rank x P + B x max(measure, results x per_result)  (declared)
    wall = start + start_per_rank x P + B x results x per_result     (per_result learned)

`start` and `start_per_rank`: smpirun's own start-up, measured once per host with two small
smpirun launches on the run's platform (1 and up to 64 ranks) and kept in the data directory
(CALIBRATION, re-measured when missing). `measure`: the planner's measuring time (what a rank
computes runs on this host, one rank after another). `per_result`: wall seconds per result a
busy rank, the simulated operations a point takes (a point stops after its few noiseless
samples, so a shorter point budget does not shorten it). B, the busy ranks: P, but 2 for a
launch that measures one pair while the others wait blocked (a rank blocked in SMPI costs the
simulation nothing), as each benchmark declares (Benchmark.sim_busy_ranks). It is learned from
the store: the median over this host's earlier simulated launches of a benchmark,
(elapsed - start-up) / (records x B); where the store has none, what the benchmark declares
(Benchmark.sim_per_result_s, measured here: a 2-core VM, fat tree 32 x 2, SMPI 3.32) or
DEFAULT_PER_RESULT_S. A learned cost stands alone: the planned measuring (every point spending
its whole budget) was the bound a declared cost needs, but a learned one already holds what the
launches' points took, and the floor made the 256- and 1,024-rank studies' estimates 30% high
(psst at 16 ranks estimated 38 s, took 10 s; docs/study.md)."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
import re
import socket
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Mapping, Optional, Sequence, Tuple

from hpceval.errors import UsageError

CALIBRATION = "calibration.json"   # beside the simulated platforms, per host
CAL_RANKS = 64                     # the larger calibration launch (fewer on a smaller platform)
# ... and the largest, on an allocation of more: SMPI's MPICH selector builds a communicator's
# node communicators at its first collective with a ring allgather of P-1 steps
# (Comm::init_smp), P^2 messages: one point of p2p took 0.14, 1.2, 5.1 and 24 s on 64, 256, 512
# and 1,024 ranks (SimGrid 4.1; 3.32 36 s at 1,024), not the 1.8 s at 1,024 that the line
# through 2 and 64 ranks gave. The start-up is that line plus per_rank2_s x P^2 beyond.
CAL_TOP = 1024
LAUNCH_OVERHEAD_S = 0.15           # hpceval's side of a launch: spawning, parsing, storing
DEFAULT_PER_RESULT_S = 0.05        # a kind neither learned nor declared
LEARNED_FROM = 200                 # the latest launches of a benchmark the median is taken over
# ... and of one problem at one rank count: the latest few, so that a rung learns a change of
# the harness at once (p2p 0-1 at 2 ranks took 260 s in one study and 128 s in the next; the
# median over every study here still said 222)
RUNG_FROM = 3
# A rung not learned yet (a top rung one step beyond the last study's): its problem's cost at
# the nearest rank count learned below, times (that / its own) ** TREND. A result's cost a busy
# rank, beyond the growth of SMPI's cost a message, falls as ranks grow: a point's batches and
# budget are simulated time, and an operation across more nodes takes longer, so a point makes
# fewer of them (halo's 8 ops a sample at 64 ranks, 1.5 at 128). Backtested over the 25 rungs
# that runs 2-9 of the study here took beyond their problem's learned ones (docs/study.md):
# median |log(estimate / took)| 0.23 (the problem's median over every rank count: 0.65; the
# nearest rung alone, TREND 0: 0.41), time-weighted 1.10x what they took. A benchmark whose
# simulation grows faster declares its own (Benchmark.sim_trend; nbc's P^2 flows: -2).
TREND = 0.25
REACH = 16        # ... from at most this many times fewer ranks (the farthest backtested)
# How SMPI's wall cost of a message grows with the busy ranks B beyond REF_RANKS (where the
# declared costs were measured): a + b B a message, GROWTH = b / a a rank. Measured here with 8 B
# halo exchanges on 64 and 1,024 ranks (docs/simulate.md, "SimGrid's own cost"): SimGrid before
# 3.34 walks a list of every detached send in flight per message (3.9 -> 26.4 us); 3.34 and
# later keep a set (4.1: 4.7 -> 8.8 us).
REF_RANKS = 64
GROWTH_LIST, GROWTH_SET = 0.0098, 0.00095
SET_SINCE = (3, 34)


def kind(benchmark: str, label: str) -> str:
    """What a launch's cost is known by: its label's words before ' np=' ('p2p 0-1'), else its
    benchmark."""
    head = label.split(" np=", 1)[0]
    return head if head != label and head != benchmark else benchmark


def busy(benchmark: str, label: str, nranks: int, busy_ranks: Mapping[str, int]) -> int:
    """The ranks of a launch that cost the simulation wall time: `busy_ranks` of its kind (a
    launch that measures one pair while the others wait blocked in SMPI, which costs nothing:
    2), else every rank."""
    k = kind(benchmark, label)
    return min(nranks, busy_ranks[k]) if k in busy_ranks else nranks


def _smpirun_s(sim: Dict[str, Any], np: int, binary: str) -> float:
    from hpceval.simulate.session import launch_cfg
    argv = [binary, "--sizes", "8", "--warmup", "0", "--min-reps", "1", "--max-reps", "1",
            "--budget", "0.00001", "--modes", "pingpong", "--protocols", "send",
            "--pattern", "0-1" if np > 1 else "ring", "--refine", "0"]
    start = time.monotonic()
    subprocess.run(["smpirun", "-np", str(np), "-platform", sim["platform_file"], "-hostfile",
                    sim["hostfile"], *launch_cfg(sim, argv, np), "--log=root.thres:critical",
                    *argv], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=120, check=False)
    return time.monotonic() - start


def calibration(sim: Dict[str, Any], binary: str) -> Dict[str, float]:
    """smpirun's start-up on this host: {start_s, per_rank_s, per_rank2_s}, measured once (one
    point of p2p on 2 and up to CAL_RANKS ranks, and on up to CAL_TOP where the allocation has
    more than CAL_RANKS) and kept beside the platforms."""
    path, known = _calibrations(sim)
    host = calibration_key(Path(binary).parent)
    ranks = sim["nodes"] * sim["ppn"]
    top = min(CAL_TOP, ranks) if ranks > CAL_RANKS else 0
    mine = known.get(host)
    if _usable(mine) and mine.get("top_ranks", 0) >= top:
        return mine
    if not _usable(mine):
        big = max(min(CAL_RANKS, ranks), 2)
        small_s, big_s = _smpirun_s(sim, 2, binary), _smpirun_s(sim, big, binary)
        per_rank = max((big_s - small_s) / max(big - 2, 1), 0.0)
        mine = {"start_s": round(max(small_s - 2 * per_rank, 0.0) + LAUNCH_OVERHEAD_S, 4),
                "per_rank_s": round(per_rank, 6), "measured_ranks": big}
    if top:
        line = mine["start_s"] + mine["per_rank_s"] * top
        mine = {**mine, "top_ranks": top,
                "per_rank2_s": max(_smpirun_s(sim, top, binary) - line, 0.0) / top ** 2}
    known[host] = mine
    part = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        part.write_text(json.dumps(known, indent=1))
        part.replace(path)
    except OSError:
        pass                                   # measured again next time
    return mine


def calibration_key(bindir: Optional[Path]) -> str:
    """Whose start-up calibration.json keeps: this host's under the SimGrid the SMPI build in
    `bindir` was compiled with, as its buildinfo says ("vm SimGrid version 4.1"; a SimGrid's
    start-up is its own: 4.1 starts 1,024 ranks in 0.26 s, 3.32 in 0.66 s); the host alone
    where that is not known."""
    host = socket.gethostname()
    version = _simgrid(bindir)
    return f"{host} {version}" if version else host


def _simgrid(bindir: Optional[Path]) -> Optional[str]:
    """"SimGrid version 3.32": what the SMPI build in `bindir` was compiled with, as its
    buildinfo says; None where it does not."""
    try:
        info = json.loads((bindir / "buildinfo.json").read_text()) if bindir else {}
    except (OSError, ValueError):
        info = {}
    version = info.get("compiler") if isinstance(info, dict) else None
    return version if isinstance(version, str) and "SimGrid" in version else None


def growth_per_rank(bindir: Optional[Path]) -> float:
    """GROWTH of the build's SimGrid (growth_of)."""
    return growth_of(_simgrid(bindir))


def growth_of(version: Optional[str]) -> float:
    """GROWTH of a SimGrid by its version text ("SimGrid version 4.1"): the list's before
    3.34, and where the version is not known (Debian 12's is 3.32)."""
    m = re.search(r"(\d+)\.(\d+)", version or "")
    return GROWTH_SET if m and (int(m.group(1)), int(m.group(2))) >= SET_SINCE else GROWTH_LIST


def growth(busy_ranks: int, per_rank: float) -> float:
    """What a message costs with `busy_ranks` busy against REF_RANKS (1 up to REF_RANKS)."""
    return (1 + per_rank * busy_ranks) / (1 + per_rank * REF_RANKS) if busy_ranks > REF_RANKS \
        else 1.0


def _calibrations(sim: Dict[str, Any]):
    """calibration.json's path (beside the simulated platforms) and what it holds per host."""
    path = Path(sim["platform_file"]).parent.parent / CALIBRATION
    try:
        known = json.loads(path.read_text())
    except (OSError, ValueError):
        known = {}
    return path, known if isinstance(known, dict) else {}


def _usable(cal: Any) -> bool:
    return isinstance(cal, dict) and {"start_s", "per_rank_s"} <= set(cal)


def stored_calibration(sim: Dict[str, Any]) -> Optional[Dict[str, float]]:
    """This host's calibration as calibration.json keeps it, None when it has none (nothing is
    measured: `run --dry-run --simulate`)."""
    known = _calibrations(sim)[1]
    for key in (calibration_key(_smpi_build()), socket.gethostname()):
        if _usable(known.get(key)):
            return known[key]
    return None


def _smpi_build() -> Optional[Path]:
    """The SMPI build a run would use (a dry run names none), None without one."""
    from hpceval.simulate.session import smpi_bindir
    try:
        return smpi_bindir()
    except UsageError:
        return None


def problem(label: str) -> str:
    """A launch's problem: its label without the rank count ('psst T170 L=18', 'halo'). A
    kind's results cost what its problem makes them (psst's at T170 14x its at T42)."""
    return re.sub(r" np=\d+", "", label).strip()


def covers(learned: str, asked: str) -> bool:
    """Whether a learned problem's label words hold an asked one's: the same words, where a
    list of variants may stand for one of them ('alltoallv,pairwise' covers 'alltoallv')."""
    have, want = learned.split(), asked.split()
    return len(have) == len(want) and all(
        h == w or set(w.split(",")) <= set(h.split(",")) for h, w in zip(have, want))


# What a point does once besides its samples, in samples: setting up, the check run (evh1's
# --steps steps again)
ONCE = 1


def _flag(tokens: Sequence[str], name: str, default: Optional[int]) -> Optional[int]:
    try:
        return int(tokens[list(tokens).index(name) + 1])
    except (ValueError, IndexError):
        return default


def work(tokens: Sequence[str], samples: Optional[float] = None) -> Optional[float]:
    """A result's work, in steps (a launch's argv, or its stored command split): (warm-up +
    samples + ONCE) x --steps, with `samples` its records' mean count; without, the fixed count
    its --min-reps = --max-reps ask (a top rung's), else None (a point's count is then its
    noise's). A top rung's cost is its source's scaled by their works: evh1's top at 256
    ranks made 20 samples of 10 steps where its ladder's rungs made 3."""
    if samples is None:
        low, high = _flag(tokens, "--min-reps", None), _flag(tokens, "--max-reps", None)
        if low is None or low != high:
            return None
        samples = low
    return (_flag(tokens, "--warmup", 0) + samples + ONCE) * (_flag(tokens, "--steps", 1) or 1)


@dataclass(frozen=True)
class Learned:
    """Wall seconds a result a busy rank of this host's earlier simulated launches (medians):
    by kind, by problem, and by problem and rank count; and, where their work was known, a
    unit of it (`per_work`, keyed ("kind" | "problem" | "rung", its key))."""
    kinds: Dict[str, float]
    problems: Dict[str, float]
    rungs: Dict[Tuple[str, int], float]
    per_work: Dict[Tuple[str, Any], float] = field(default_factory=dict)


GROUPS = ("kind", "problem", "rung")


def learned_costs(store, host: str, busy_ranks: Mapping[str, int],
                  per_rank: float = GROWTH_LIST, version: Optional[str] = None,
                  startup: Optional[Callable[[int], float]] = None) -> Learned:
    """Wall seconds per result per busy rank of this host's earlier simulated launches, as at
    REF_RANKS busy ranks (each launch's over its `growth`, its own SimGrid's where the store
    names it, else `per_rank`: 3.32's launches at 256 ranks cost 2.2x what they would at 64,
    4.1's 1.2x): the medians over a kind's latest
    LEARNED_FROM that ended ok with records, or were stopped at their limit with some (their
    records over their time: an upper bound), by kind, problem and rung (a rung's over its
    latest RUNG_FROM); the same over each one's `work` a result. Where a kind, problem or rung
    has launches of the SimGrid `version` the plan will run, those alone: the 4.1 hour's first
    barotropic at 1,024 ranks took twice what 3.32's 256-rank launches made of it. `startup`:
    the start-up the plan will add (SimCost.startup_s), taken off instead of what each launch
    stored (the launches before CAL_TOP stored a line that left 22 s at 1,024 ranks in
    their measuring)."""
    groups: Tuple[Dict, Dict, Dict] = ({}, {}, {})     # {at: (this version's, others')}
    for bench, label, nranks, elapsed, started, n, samples, command, ran in \
            store.simulated_launches(host):
        key, same = kind(bench, label), int(ran != version or version is None)
        b = max(busy(bench, label, nranks, busy_ranks), 1)
        if n and len(groups[0].setdefault(key, ([], []))[same]) < LEARNED_FROM:
            began = startup(int(nranks)) if startup else started
            cost = max(elapsed - began, 0.0) / (
                n * b * growth(b, growth_of(ran) if ran else per_rank))
            w = work(str(command).split(), samples) if samples else None
            for group, at, most in zip(groups, (key, problem(label), (problem(label), int(nranks))),
                                       (LEARNED_FROM, LEARNED_FROM, RUNG_FROM)):
                if len(group.setdefault(at, ([], []))[same]) < most:
                    group[at][same].append((cost, w))
    chosen = [{k: v[0] or v[1] for k, v in g.items() if v[0] or v[1]} for g in groups]
    kinds, problems, rungs = ({k: statistics.median(c for c, _ in v) for k, v in g.items()}
                              for g in chosen)
    per_work = {(name, k): statistics.median(units) for name, g in zip(GROUPS, chosen)
                for k, v in g.items() if (units := [c / w for c, w in v if w])}
    return Learned(kinds, problems, rungs, per_work)


def learned(store, host: str, busy_ranks: Mapping[str, int],
            per_rank: float = GROWTH_LIST) -> Dict[str, float]:
    """learned_costs' by kind."""
    return learned_costs(store, host, busy_ranks, per_rank).kinds


class SimCost:
    """A simulated launch's wall time on this host (the module's model). `per_result`: seconds
    a result a busy rank by kind, the ones in `learned` from this host's store, the others
    declared with the benchmarks (Benchmark.sim_per_result_s); `fine`: the learned costs by
    problem and rung, which a launch of a problem (and rank count) learned takes (halo's cost a
    result a rank at 8 ranks is twice its median over 2-1,024 ranks, at 32 ranks half of it;
    psst's at T170 14x its at T42); `busy_ranks` by kind (Benchmark.sim_busy_ranks); `trends`
    by kind where not TREND (Benchmark.sim_trend)."""

    def __init__(self, start_s: float, per_rank_s: float, per_result: Mapping[str, float],
                 busy_ranks: Optional[Mapping[str, int]] = None, learned: Iterable[str] = (),
                 growth_per_rank: float = GROWTH_LIST, fine: Optional[Learned] = None,
                 per_rank2_s: float = 0.0, trends: Optional[Mapping[str, float]] = None):
        self.start_s, self.per_rank_s, self.per_rank2_s = start_s, per_rank_s, per_rank2_s
        self.trends = dict(trends or {})
        self.per_result = dict(per_result)
        self.busy_ranks = dict(busy_ranks or {})
        self.learned = set(learned)
        self.growth_per_rank = growth_per_rank
        self.fine = fine or Learned({}, {}, {})

    def startup_s(self, nranks: int) -> float:
        return self.start_s + self.per_rank_s * nranks + self.per_rank2_s * nranks ** 2

    def note(self) -> str:
        learned = (f"learned from earlier simulated launches here for {len(self.learned)} "
                   "kinds, else from" if self.learned else "from")
        return (f"simulated start-up {self.start_s:.2f} s + {self.per_rank_s * 1e3:.2f} ms a "
                f"rank + {self.per_rank2_s * 1e6:.2f} us a rank squared (smpirun's and SMPI's "
                f"node communicators, {CALIBRATION}; {self.startup_s(1024):.1f} s at 1,024 "
                f"ranks); a result's cost {learned} the benchmarks' "
                f"declarations, measured here, growing beyond {REF_RANKS} busy ranks as "
                f"SMPI's cost a message does (x{growth(1024, self.growth_per_rank):.2f} at "
                "1,024)")

    def measure_s(self, benchmark: str, label: str, nranks: int, results: int,
                  planned: float, argv: Sequence[str] = ()) -> float:
        """Its measuring's wall time; `argv`: the launch's, whose fixed work (work()) a cost
        learned by work scales to."""
        key, fixed = kind(benchmark, label), work(argv) if argv else None
        key = key if key in self.per_result else benchmark
        b = busy(benchmark, label, nranks, self.busy_ranks)
        cost = results * self.each(key, label, nranks, fixed) * growth(b, self.growth_per_rank)
        return b * (cost if self.stands_alone(key, label) else max(planned, cost))

    def stands_alone(self, key: str, label: str) -> bool:
        """Whether a learned cost is the launch's estimate without the planned floor: learned
        for its problem (or, with no costs by problem at all, for its kind). A kind's cost for a
        problem never simulated here keeps the floor: barotropic 3600x2400 at 128 ranks, from
        320x384's cost, was estimated at 52 s and killed at its limit of 159 s."""
        return key in self.learned and (not self.fine.problems
                                        or self.problem_cost(problem(label)) is not None)

    def each(self, key: str, label: str, nranks: int, work: Optional[float] = None) -> float:
        """A result's cost a busy rank: learned for this problem at this rank count, else at
        the nearest rank count below it (the trend beyond), else for this problem at any, else
        the kind's; for a launch of a fixed `work`, what a unit of work cost there times it."""
        p = problem(label)
        if (p, nranks) in self.fine.rungs:
            return self._cost("rung", [(p, nranks)], work)
        below = self.below(p, nranks, self.trends.get(key, TREND), work)
        if below is not None:
            return below
        mine = self.problem_cost(p, work)
        if mine is not None:
            return mine
        if key in self.fine.kinds:
            return self._cost("kind", [key], work)
        return self.per_result.get(key, DEFAULT_PER_RESULT_S)

    def _cost(self, group: str, keys: Sequence[Any], work: Optional[float]) -> float:
        """The median cost a result of the learned `keys` of `group`; with `work`, their cost
        a unit of work times it where every one knows it."""
        units = [self.fine.per_work.get((group, k)) for k in keys]
        if work and all(u is not None for u in units):
            return statistics.median(units) * work
        table = dict(zip(GROUPS, (self.fine.kinds, self.fine.problems, self.fine.rungs)))[group]
        return statistics.median(table[k] for k in keys)

    def below(self, p: str, nranks: int, trend: float = TREND,
              work: Optional[float] = None) -> Optional[float]:
        """A problem's cost at `nranks` from its nearest rung learned below, at most REACH
        times fewer (or, where it has none, the problems' that cover it), times (below /
        nranks) ** TREND; None without."""
        near = [(r, q) for r, q in self.fine.rungs
                if nranks / REACH <= q < nranks and covers(r, p)]
        near = [n for n in near if n[0] == p] or near
        if not near:
            return None
        q = max(q for _, q in near)
        return self._cost("rung", [n for n in near if n[1] == q], work) * (q / nranks) ** trend

    def problem_cost(self, p: str, work: Optional[float] = None) -> Optional[float]:
        """A problem's learned cost a result a busy rank: its own, else the median of the
        problems learned that cover it (a top rung's one variant, 'evh1 64x64x64 blast
        alltoallv', learned in its ladder's 'alltoallv,pairwise,alltoallw': a result costs
        what its variant's does; the kind's median was 2.7x what evh1's top took); None."""
        near = [p] if p in self.fine.problems else \
            [q for q in self.fine.problems if covers(q, p)]
        return self._cost("problem", near, work) if near else None


def sim_cost(sim: Dict[str, Any], binary: Optional[str], store: Optional[Any],
             declared: Mapping[str, float] = {}, busy_ranks: Mapping[str, int] = {},
             trends: Mapping[str, float] = {}) -> Optional[SimCost]:
    """The model with smpirun's start-up measured (once) when `binary` is given, else as
    calibration.json keeps it (None when it has none); results' costs learned from `store`,
    else `declared`; `trends` by kind where not TREND."""
    cal = calibration(sim, binary) if binary is not None else stored_calibration(sim)
    if cal is None:
        return None
    bindir = Path(binary).parent if binary is not None else _smpi_build()
    per_rank = growth_per_rank(bindir)
    began = SimCost(cal["start_s"], cal["per_rank_s"], {},
                    per_rank2_s=cal.get("per_rank2_s", 0.0)).startup_s
    fine = learned_costs(store, socket.gethostname(), busy_ranks, per_rank, _simgrid(bindir),
                         began) if store is not None else Learned({}, {}, {})
    return SimCost(cal["start_s"], cal["per_rank_s"], {**declared, **fine.kinds}, busy_ranks,
                   fine.kinds, per_rank, fine, cal.get("per_rank2_s", 0.0), trends)
