"""The launches of one run: each executed, its records tagged with where they ran, checked for
spread and stored (with its trace when traced); then the headline points that came out
disturbed or unconverged measured again."""
from __future__ import annotations

import os
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from hpceval import paths
from hpceval.catalog import BENCHMARKS, LaunchSpec, PlanContext
from hpceval.catalog.estimate import estimate_s, own_limit_s, spec_startup_s
from hpceval.errors import Interrupted
from hpceval.quality import mark_spread, worth_remeasuring
from hpceval.runner.jobtime import no_room
from hpceval.runner.execute import Outcome, execute
from hpceval.runner.placement import Placement, emulates_nodes, launch_command, tag_records
from hpceval.runner.progress import ProgressDisplay
from hpceval.runner.signals import held
from hpceval.slurm.clock import JobClock
from hpceval.store import Store
from hpceval.store.db import now
from hpceval.trace.chrome import TraceError
from hpceval.trace.preload import trace_env


@dataclass
class RunResult:
    run_id: int
    status: str
    failures: List[str] = field(default_factory=list)
    usage_errors: List[str] = field(default_factory=list)
    remeasured: int = 0                # launches that measured a headline point again
    reason: Optional[str] = None       # why the run stopped short (the job's time limit)
    left_out: List[str] = field(default_factory=list)   # labels of the launches not made

    def timed_out(self, reason: str, rest: List[LaunchSpec]) -> str:
        """The run stopped at its job's time limit: why, and what it left out."""
        self.reason, self.left_out = reason, [s.label for s in rest]
        return "timeout"


def launch_record(spec: LaunchSpec, out: Outcome) -> Dict[str, Any]:
    """A launch as the store keeps it: its estimate (and the start-up in it) beside its
    elapsed time."""
    return {"benchmark": spec.benchmark, "label": spec.label, "command": out.command_line,
            "env": spec.env, "nranks": spec.nranks, "started": out.started,
            "estimate_s": round(estimate_s(spec), 3), "startup_s": round(spec_startup_s(spec), 3),
            "elapsed_s": round(out.elapsed_s, 3), "exit_code": out.exit_code, "status": out.status,
            "message": out.message, "warnings": out.warnings, "meta": out.meta}


def in_run(store: Store, open_run: Callable[[], int],
           body: Callable[[int], Tuple[str, Optional[str], Any]]) -> Any:
    """Open a run (`open_run`: its id), measure (`body(run_id)`: status, reason, the value to
    return) and close it with that status, or mark it interrupted when a stop signal ends it
    (one while it opens: the row is made, then marked; one while it closes: it closes whole and
    the signal is raised after). The store is closed."""
    run_id: Optional[int] = None
    try:
        with held():
            run_id = open_run()
        status, reason, value = body(run_id)
    except KeyboardInterrupt:
        if run_id is not None:
            store.finish_run(run_id, "interrupted")
        store.close()
        raise
    try:
        with held():
            store.finish_run(run_id, status, reason)
    finally:
        store.close()
    return value


RUN_TRACE_MAX_EVENTS = 200_000   # per rank, for traces stored with a run


@contextmanager
def tracing(on: bool, env: Dict[str, str]) -> Iterator[Optional[str]]:
    """For a traced launch: the PMPI trace library preloaded and a private directory for the
    per-rank trace files (removed afterwards); env is updated in place."""
    if not on:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="hpceval-trace-") as d:
        # Stored with the run and drawn in the report: the first events of each rank are
        # plenty (a ping-pong sweep would otherwise keep millions); later ones are counted.
        env.update(trace_env(d, os.environ.get("HPCEVAL_TRACE_MAX_EVENTS", RUN_TRACE_MAX_EVENTS)))
        yield d


def collect_trace(trace_dir: str, out: Outcome) -> Optional[Dict[str, Any]]:
    """The merged trace of a launch that ran to the end, or None with a warning."""
    if out.status != "ok":
        return None
    try:
        from hpceval.trace.merge import merge_dir     # numpy: only a traced run loads it
        return merge_dir(trace_dir, out.command_line)
    except TraceError as exc:
        out.warnings.append(f"no trace kept: {exc}")
        return None


def run_launch(launcher, spec: LaunchSpec, timeout_s: float, place: Optional[Placement] = None,
               clock: Optional[JobClock] = None, on_record=None) -> Outcome:
    """The one way a planned launch runs (a run's launches, an experiment's, the cache probe):
    the spec's binary (from the build its env names in HPCEVAL_BINDIR, else the run's), the
    launcher's command for its placement with its warnings (oversubscription, binding), executed
    under its time limit capped by a Slurm job's end, traced when asked (the merged trace in
    out.trace); its records tagged with where they ran and checked for spread."""
    env = dict(spec.env)
    argv = [str(paths.binary(spec.binary, env.get("HPCEVAL_BINDIR")))] + spec.args
    with tracing(spec.trace, env) as trace_dir:
        command, notes = launch_command(launcher, place, spec.nranks, argv, spec.bind, env,
                                        spec.ppn)
        out = execute(command, env, (clock or JobClock()).cap(timeout_s), now(),
                      on_record=on_record or (lambda rec: None))
        out.trace = collect_trace(trace_dir, out) if trace_dir else None
    out.warnings += notes
    tag_records(out.results, out.meta, emulates_nodes(spec.args))
    for rec in out.results:   # a preset (swm runs psst's binary) reports under its own name
        rec["benchmark"] = spec.benchmark
    mark_spread(out.results)
    return out


# Seconds a launch under way when the run's --budget runs out is given past it (to write its
# point in progress and leave MPI_Finalize) before it is ended like a launch at its time limit.
BUDGET_GRACE_S = 1.0


def budget_cut(out: Outcome) -> bool:
    """Whether the run's --budget, not a stop signal, ended the launch (Session.launch)."""
    return out.status == "interrupted" and not out.signum


class Session:
    """The launches of one run: each is executed, its records checked for spread and stored,
    and kept (with its spec) so that headline points can be measured again. With a `deadline`
    (the --budget's end, time.monotonic()), no launch runs past it by more than BUDGET_GRACE_S."""

    def __init__(self, store: Store, run_id: int, launcher, ctx: PlanContext,
                 display: ProgressDisplay, timeout_s: Optional[float],
                 place: Optional[Placement] = None, deadline: Optional[float] = None):
        self.store, self.run_id, self.launcher, self.ctx = store, run_id, launcher, ctx
        self.display, self.timeout_s, self.place = display, timeout_s, place
        self.deadline = deadline
        self.done: List[Tuple[LaunchSpec, Outcome]] = []
        self.index = 0
        self.clock = JobClock()            # inside a Slurm job: launches end before the job

    def spent(self, need: float = 0.0) -> bool:
        """Whether what is left of the --budget cannot hold `need` seconds more."""
        return self.deadline is not None and time.monotonic() + need > self.deadline

    def _limit(self, spec: LaunchSpec) -> Tuple[float, bool]:
        """The launch's time limit, and whether the budget's end (not its own limit) sets it.
        Under a --budget it is the least of what is left of the budget (plus BUDGET_GRACE_S)
        and --timeout; a simulated launch's also its own limit (own_limit_s: its estimate, SMPI's
        measured wall time included, TIMEOUT_FACTOR times over), so one runaway simulated launch
        does not eat the rest of the budget. A real launch's estimate is no such bound: on a
        loaded 2-core host mem-latency took 6 s against 0.9 s planned and is a measurement the
        user asked for, not a hang."""
        if self.deadline is None:
            return self.timeout_s or spec.timeout_s, False
        left = max(self.deadline - time.monotonic(), 0.0) + BUDGET_GRACE_S
        own = min(own_limit_s(spec) if self.ctx.sim_cost is not None else float("inf"),
                  self.timeout_s or float("inf"))
        return (left, True) if left < own else (own, False)

    def launch(self, spec: LaunchSpec, remeasure: Optional[int] = None) -> Outcome:
        self.index += 1
        self.display.start(self.index, spec.label, spec.expected_results)
        limit, by_budget = self._limit(spec)
        out = run_launch(self.launcher, spec, limit, self.place, self.clock,
                         self.display.advance)
        if by_budget and out.status == "timeout":
            # Not a hang: the run's time was up. Its records so far are kept, as measured.
            out.status = "interrupted"
            out.message = (f"ended at the end of the run's --budget, after {out.elapsed_s:.0f} s "
                           f"({len(out.results)} records kept)")
        elif self.deadline is not None and out.status == "timeout":
            # Its own limit under the budget: a timeout of this launch; the run goes on.
            out.message = (f"killed at its own limit of {limit:.0f} s under the --budget "
                           f"(estimated at {estimate_s(spec):.1f} s), after "
                           f"{out.elapsed_s:.0f} s ({len(out.results)} records kept)")
        for rec in out.results if remeasure else ():
            rec["remeasured"] = remeasure
        with held():                       # stored whole, also when a stop signal comes
            self.store.add_launch(self.run_id, launch_record(spec, out), out.results, out.trace)
        out.trace = None                   # stored: not kept with the run's outcomes
        self.display.finish(self.index, spec.label, out.status, out.elapsed_s, len(out.results),
                            out.message)
        self.done.append((spec, out))
        return out


# Rounds of re-measuring disturbed or unconverged headline points, at most.
MAX_REMEASURE = 2


def _to_remeasure(session: Session, pick: Callable[[List[Dict[str, Any]]], List[Dict[str, Any]]]
                  ) -> List[LaunchSpec]:
    """Narrowed launches for the headline points (as `pick` chooses them from every record so
    far) that are disturbed, or unconverged when the budget (not --max-reps) cut them short:
    once per launch."""
    done = {id(r): (spec, out) for spec, out in session.done for r in out.results}
    todo: Dict[str, LaunchSpec] = {}
    for rec in pick([r for _, out in session.done for r in out.results]):
        spec, out = done.get(id(rec), (None, None))
        if spec is None or not worth_remeasuring(rec, ((out.meta or {}).get("rep") or {})):
            continue
        narrow = BENCHMARKS[spec.benchmark].narrow
        again = narrow(spec, rec.get("params") or {}) if narrow else None
        if again is not None:
            todo.setdefault(again.label, again)
    return list(todo.values())


def remeasure(session: Session, pick, result: "RunResult") -> str:
    """Measure unclean headline points again, a bounded number of rounds; the best measurement
    of a point speaks for it (hpceval.quality). Returns the run status."""
    for attempt in range(1, MAX_REMEASURE + 1):
        todo = _to_remeasure(session, pick)
        session.display.total += len(todo)
        for spec in todo:
            if no_room(session.clock, spec) or session.spent():
                return "ok"            # no time left (job, budget): the first measurements stand
            out = session.launch(spec, remeasure=attempt)
            result.remeasured += 1
            if budget_cut(out):
                return "ok"            # the budget is spent: the first measurements stand
            if out.status == "interrupted":
                raise Interrupted(out.signum)
            if out.status != "ok":
                result.failures.append(f"{spec.label}: {out.message}")
                return "failed"
    return "ok"

