"""Runner: plan -> launch -> records -> validate -> store, one launch at a time."""
from __future__ import annotations

import os
import shlex
import signal
import sys
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from hpceval import paths
from hpceval.catalog import BENCHMARKS, LaunchSpec, PlanContext, plan_targets
from hpceval.errors import Interrupted, UsageError
from hpceval.fingerprint import llc_bytes, machine_fingerprint, mem_available_bytes
from hpceval.launch import find_launcher
from hpceval.quality import mark_spread, worth_remeasuring
from hpceval.runner.execute import Outcome, execute
from hpceval.runner.llcprobe import LLC, probe_llc
from hpceval.runner.nodeprint import run_nodes
from hpceval.runner.placement import (Placement, check_plan, emulates_nodes, launch_command,
                                      tag_records)
from hpceval.runner.progress import ProgressDisplay
from hpceval.slurm import runs as slurm_runs
from hpceval.slurm.clock import JobClock
from hpceval.store import Store
from hpceval.store.db import now
from hpceval.trace.chrome import TraceError
from hpceval.trace.merge import merge_dir
from hpceval.trace.preload import trace_env


@dataclass
class RunResult:
    run_id: int
    status: str
    failures: List[str] = field(default_factory=list)
    usage_errors: List[str] = field(default_factory=list)
    remeasured: int = 0                # launches that measured a headline point again


def plan_context(nranks: Optional[int], place: Optional[Placement] = None) -> PlanContext:
    fp = machine_fingerprint()
    return PlanContext(cores=fp["cores"], llc_bytes=llc_bytes(fp["caches"]),
                       mem_available_bytes=mem_available_bytes(),
                       nranks=place.nranks if place else nranks,
                       nodes=len(place.hosts) if place else 1, ppn=place.ppn if place else None)


def _launch_record(spec: LaunchSpec, out: Outcome) -> Dict[str, Any]:
    return {"benchmark": spec.benchmark, "label": spec.label, "command": out.command_line,
            "env": spec.env, "nranks": spec.nranks, "started": out.started,
            "elapsed_s": round(out.elapsed_s, 3), "exit_code": out.exit_code, "status": out.status,
            "message": out.message, "warnings": out.warnings, "meta": out.meta}


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
        return merge_dir(trace_dir, out.command_line)
    except TraceError as exc:
        out.warnings.append(f"no trace kept: {exc}")
        return None


class _Session:
    """The launches of one run: each is executed, its records checked for spread and stored,
    and kept (with its spec) so that headline points can be measured again."""

    def __init__(self, store: Store, run_id: int, launcher, ctx: PlanContext,
                 display: ProgressDisplay, timeout_s: Optional[float],
                 place: Optional[Placement] = None):
        self.store, self.run_id, self.launcher, self.ctx = store, run_id, launcher, ctx
        self.display, self.timeout_s, self.place = display, timeout_s, place
        self.done: List[Tuple[LaunchSpec, Outcome]] = []
        self.index = 0
        self.clock = JobClock()            # inside a Slurm job: launches end before the job

    def launch(self, spec: LaunchSpec, remeasure: Optional[int] = None) -> Outcome:
        self.index += 1
        env = dict(spec.env)
        argv = [str(paths.binary(spec.binary))] + spec.args
        with tracing(spec.trace, env) as trace_dir:
            command, notes = launch_command(self.launcher, self.place, spec.nranks, argv,
                                            spec.bind, env)
            self.display.start(self.index, spec.label, spec.expected_results)
            out = execute(command, env, self.clock.cap(self.timeout_s or spec.timeout_s), now(),
                          on_record=lambda _r: self.display.advance())
            trace = collect_trace(trace_dir, out) if trace_dir else None
        out.warnings += notes
        tag_records(out.results, out.meta, emulates_nodes(spec.args))
        mark_spread(out.results)
        for rec in out.results if remeasure else ():
            rec["remeasured"] = remeasure
        self.store.add_launch(self.run_id, _launch_record(spec, out), out.results, trace)
        self.display.finish(self.index, spec.label, out.status, out.elapsed_s, len(out.results),
                            out.message)
        self.done.append((spec, out))
        return out


# Rounds of re-measuring disturbed or unconverged headline points, at most.
MAX_REMEASURE = 2


def _to_remeasure(session: _Session, pick: Callable[[List[Dict[str, Any]]], List[Dict[str, Any]]]
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


def _remeasure(session: _Session, pick, result: "RunResult") -> str:
    """Measure unclean headline points again, a bounded number of rounds; the best measurement
    of a point speaks for it (hpceval.quality). Returns the run status."""
    for attempt in range(1, MAX_REMEASURE + 1):
        todo = _to_remeasure(session, pick)
        session.display.total += len(todo)
        for spec in todo:
            out = session.launch(spec, remeasure=attempt)
            result.remeasured += 1
            if out.status == "interrupted":
                raise Interrupted(out.signum)
            if out.status != "ok":
                result.failures.append(f"{spec.label}: {out.message}")
                return "failed"
    return "ok"


def _plan(targets: Sequence[str], sets: Sequence[str], ctx: PlanContext,
          trace: bool) -> List[LaunchSpec]:
    specs = plan_targets(targets, sets, ctx)
    for spec in specs:
        spec.trace = spec.trace or trace
    return specs


LLC_CHOICES = ("probe", "reported")


def _llc(choice: str, specs: List[LaunchSpec], launcher, ctx: PlanContext) -> Optional[LLC]:
    """Check the reported last-level cache with the probe when a planned benchmark sizes its
    arrays by it (choice 'probe'); None when nothing depends on it or 'reported' was asked."""
    if choice == "reported" or not any(BENCHMARKS[s.benchmark].sized_by_llc for s in specs):
        return None
    levels = len({c.get("level") for c in machine_fingerprint()["caches"]
                  if not str(c.get("type") or "").lower().startswith("instr")})
    return probe_llc(launcher, ctx.llc_bytes, levels, ctx.mem_available_bytes)


def _check_ranks(specs: Sequence[LaunchSpec], launcher) -> None:
    """Refuse at once a launch the launcher cannot sensibly start, rather than after its time
    limit."""
    most = max((s.nranks for s in specs), default=0)
    if most > launcher.max_ranks():
        raise UsageError(f"{most} ranks: refused, {launcher.max_ranks_reason()}; "
                         f"at most {launcher.max_ranks()}")


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _stop(signum: int, _frame) -> None:
    # Once: the cleanup that follows (killing the launch's process group, marking the run) is
    # bounded and should not be cut short by a second signal.
    for sig in _STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    raise Interrupted(signum)


@contextmanager
def driver_signals() -> Iterator[None]:
    """SIGTERM, SIGHUP and SIGINT stop the run the way Ctrl-C does: the launch in progress is
    killed with its ranks and the run marked interrupted."""
    if threading.current_thread() is not threading.main_thread():
        yield                                # only the main thread may set handlers
        return
    before = {sig: signal.signal(sig, _stop) for sig in _STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def run_plan(targets: Sequence[str], *, sets: Sequence[str] = (), nranks: Optional[int] = None,
             db: str, launcher_choice: str = "auto", tags: Sequence[str] = (),
             timeout_s: Optional[float] = None, progress: Optional[ProgressDisplay] = None,
             trace: bool = False, headlines: Optional[Callable] = None,
             llc: str = "probe", place: Optional[Placement] = None) -> RunResult:
    """Plan, launch and store; with `headlines` (records -> the headline records), re-measure
    the headline points that came out disturbed or unconverged. `llc`: 'probe' checks the
    reported last-level cache before planning memory benchmarks, 'reported' trusts it."""
    if nranks is not None and nranks < 1:
        raise UsageError(f"--np {nranks}: need at least 1 rank")
    if llc not in LLC_CHOICES:
        raise UsageError(f"--llc {llc}: expected one of {', '.join(LLC_CHOICES)}")
    nranks = slurm_runs.default_ranks(nranks)
    ctx = plan_context(nranks, place)
    specs = _plan(targets, sets, ctx, trace)          # bad settings fail here, before any run
    for binary in {s.binary for s in specs}:
        paths.binary(binary)
    if any(s.trace for s in specs):
        paths.trace_library()                         # missing: one line now, not mid-run
    launcher = find_launcher(launcher_choice, ctx.cores)
    if place is None:
        _check_ranks(specs, launcher)     # every rank on this host
    check_plan(launcher, place, [s.nranks for s in specs])
    cache = _llc(llc, specs, launcher, ctx)
    if cache is not None and cache.used != ctx.llc_bytes:
        ctx.llc_bytes = cache.used
        specs = _plan(targets, sets, ctx, trace)
    fingerprint = machine_fingerprint(launcher.describe())
    store = Store(db)
    suite = "+".join(targets)
    settings = {"sets": list(sets), "np": nranks, "launcher": launcher_choice,
                "timeout_s": timeout_s, "trace": trace,
                "placement": place.settings() if place else None,
                "nodes": run_nodes(launcher, place, timeout_s),
                "llc": cache.settings() if cache else {"used": ctx.llc_bytes, "source": "reported"},
                **slurm_runs.job_settings()}
    run_id = slurm_runs.open_run(store, suite, tags, fingerprint, shlex.join(sys.argv), settings)
    result = RunResult(run_id, "ok")
    display = progress or ProgressDisplay(len(specs))
    session = _Session(store, run_id, launcher, ctx, display, timeout_s, place)
    status = "ok"
    try:
        with display, driver_signals():
            for spec in specs:
                if session.clock.ending():      # the job's time is up: keep what is done
                    status = "incomplete"
                    break
                out = session.launch(spec)
                if out.status == "interrupted":
                    raise Interrupted(out.signum)
                if out.status == "timeout" and session.clock.ending():
                    status = "incomplete"          # cut short by the job's end, not a hang
                    break
                if out.status != "ok":
                    status = "failed"
                    (result.usage_errors if out.usage_error else result.failures).append(
                        f"{spec.label}: {out.message}")
            if headlines is not None and status == "ok" and not session.clock.ending():
                status = _remeasure(session, headlines, result)
    except KeyboardInterrupt:
        store.finish_run(run_id, "interrupted")
        raise
    store.finish_run(run_id, status)
    result.status = status
    store.close()
    return result
