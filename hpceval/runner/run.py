"""A run: plan (with the machine's context, the last-level cache checked), refuse what cannot
be launched, open the run in the store, launch every planned launch (hpceval/runner/session.py),
re-measure unclean headline points, close the run."""
from __future__ import annotations

import shlex
import sys
from typing import Callable, List, Optional, Sequence

from hpceval import paths
from hpceval.catalog import BENCHMARKS, LaunchSpec, PlanContext, plan_targets
from hpceval.errors import Interrupted, UsageError
from hpceval.fingerprint import llc_bytes, machine_fingerprint, mem_available_bytes
from hpceval.launch import find_launcher
from hpceval.runner.llcprobe import LLC, probe_llc
from hpceval.runner.nodeprint import run_nodes
from hpceval.runner.placement import Placement, check_plan
from hpceval.runner.progress import ProgressDisplay
from hpceval.runner.session import RunResult, Session, remeasure
from hpceval.runner.signals import driver_signals
from hpceval.simulate.session import simulated_allocation
from hpceval.slurm import runs as slurm_runs
from hpceval.store import Store


def plan_context(nranks: Optional[int], place: Optional[Placement] = None) -> PlanContext:
    fp = machine_fingerprint()
    sim = simulated_allocation()          # a simulated platform's nodes (docs/simulate.md)
    return PlanContext(cores=sim["cores_per_node"] if sim else fp["cores"],
                       llc_bytes=llc_bytes(fp["caches"]),
                       mem_available_bytes=sim["memory_bytes"] if sim else mem_available_bytes(),
                       nranks=place.nranks if place else nranks,
                       nodes=len(place.hosts) if place else 1, ppn=place.ppn if place else None)



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


def check_ranks(nranks: int, launcher) -> None:
    """Refuse at once a launch the launcher cannot sensibly start, rather than after its time
    limit."""
    if nranks > launcher.max_ranks():
        raise UsageError(f"{nranks} ranks: refused, {launcher.max_ranks_reason()}; "
                         f"at most {launcher.max_ranks()}")


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
        check_ranks(max((s.nranks for s in specs), default=0), launcher)   # all on this host
    check_plan(launcher, place, [s.nranks for s in specs])
    cache = _llc("reported" if getattr(launcher, "simulated", False) else llc, specs, launcher,
                 ctx)
    if cache is not None and cache.used != ctx.llc_bytes:
        ctx.llc_bytes = cache.used
        specs = _plan(targets, sets, ctx, trace)
    fingerprint = machine_fingerprint(launcher.describe())
    store = Store(db)
    suite = "+".join(targets)
    settings = {"sets": list(sets), "np": nranks, "launcher": launcher_choice,
                "timeout_s": timeout_s, "trace": trace,
                "build": str(paths.bin_dir()),          # which C core: pip's, hpceval build's, ...
                "placement": place.settings() if place else None,
                "nodes": run_nodes(launcher, place, timeout_s),
                "llc": cache.settings() if cache else {"used": ctx.llc_bytes, "source": "reported"},
                **slurm_runs.job_settings()}
    run_id = slurm_runs.open_run(store, suite, tags, fingerprint, shlex.join(sys.argv), settings)
    result = RunResult(run_id, "ok")
    display = progress or ProgressDisplay(len(specs))
    session = Session(store, run_id, launcher, ctx, display, timeout_s, place)
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
                status = remeasure(session, headlines, result)
    except KeyboardInterrupt:
        store.finish_run(run_id, "interrupted")
        raise
    store.finish_run(run_id, status)
    result.status = status
    store.close()
    return result
