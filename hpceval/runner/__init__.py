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
from typing import Any, Dict, Iterator, List, Optional, Sequence

from hpceval import paths
from hpceval.catalog import LaunchSpec, PlanContext, plan_targets
from hpceval.errors import Interrupted, UsageError
from hpceval.fingerprint import llc_bytes, machine_fingerprint, mem_available_bytes
from hpceval.launch import find_launcher
from hpceval.runner.execute import Outcome, execute
from hpceval.runner.progress import ProgressDisplay
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


def plan_context(nranks: Optional[int]) -> PlanContext:
    fp = machine_fingerprint()
    return PlanContext(cores=fp["cores"], llc_bytes=llc_bytes(fp["caches"]),
                       mem_available_bytes=mem_available_bytes(), nranks=nranks)


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
             trace: bool = False) -> RunResult:
    if nranks is not None and nranks < 1:
        raise UsageError(f"--np {nranks}: need at least 1 rank")
    ctx = plan_context(nranks)
    specs = plan_targets(targets, sets, ctx)          # bad settings fail here, before any run
    if trace:
        for spec in specs:
            spec.trace = True
    for binary in {s.binary for s in specs}:
        paths.binary(binary)
    if any(s.trace for s in specs):
        paths.trace_library()                         # missing: one line now, not mid-run
    launcher = find_launcher(launcher_choice, ctx.cores)
    _check_ranks(specs, launcher)
    fingerprint = machine_fingerprint(launcher.describe())
    store = Store(db)
    suite = "+".join(targets)
    settings = {"sets": list(sets), "np": nranks, "launcher": launcher_choice,
                "timeout_s": timeout_s, "trace": trace}
    run_id = store.create_run(suite, tags, fingerprint, shlex.join(sys.argv), settings)
    result = RunResult(run_id, "ok")
    display = progress or ProgressDisplay(len(specs))
    status = "ok"
    try:
        with display, driver_signals():
            for i, spec in enumerate(specs, 1):
                env = dict(spec.env)
                if launcher.oversubscribed(spec.nranks):
                    env["HPCEVAL_OVERSUBSCRIBED"] = "1"   # the harness notes it in its records
                argv = [str(paths.binary(spec.binary))] + spec.args
                with tracing(spec.trace, env) as trace_dir:
                    command = launcher.command(spec.nranks, argv, spec.bind, env)
                    display.start(i, spec.label, spec.expected_results)
                    out = execute(command, env, timeout_s or spec.timeout_s, now(),
                                  on_record=lambda _r: display.advance())
                    trace = collect_trace(trace_dir, out) if trace_dir else None
                if launcher.oversubscribed(spec.nranks):
                    out.warnings.append(f"{spec.nranks} ranks on {ctx.cores} cores: oversubscribed, "
                                        "timings are disturbed")
                store.add_launch(run_id, _launch_record(spec, out), out.results, trace)
                display.finish(i, spec.label, out.status, out.elapsed_s, len(out.results), out.message)
                if out.status == "interrupted":
                    raise Interrupted(out.signum)
                if out.status != "ok":
                    status = "failed"
                    (result.usage_errors if out.usage_error else result.failures).append(
                        f"{spec.label}: {out.message}")
    except KeyboardInterrupt:
        store.finish_run(run_id, "interrupted")
        raise
    store.finish_run(run_id, status)
    result.status = status
    store.close()
    return result
