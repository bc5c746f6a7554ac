"""A run: plan (with the machine's context, the last-level cache checked), refuse what cannot
be launched, open the run in the store, launch every planned launch (hpceval/runner/session.py),
re-measure unclean headline points, close the run."""
from __future__ import annotations

import shlex
import socket
import sys
import time
from functools import partial
from typing import Callable, List, Optional, Sequence, Tuple

from hpceval import paths
from hpceval.buildvariants import stale_build
from hpceval.catalog import BENCHMARKS, LaunchSpec, PlanContext, plan_targets
from hpceval.catalog.plan import unbuilt_note
from hpceval.catalog.registry import sim_declared, sim_trends
from hpceval.catalog.estimate import estimate_s, fit_startup
from hpceval.errors import Interrupted, UsageError
from hpceval.fingerprint import llc_bytes, machine_fingerprint, mem_available_bytes
from hpceval.launch import find_launcher
from hpceval.runner import jobtime
from hpceval.runner.llcprobe import LLC, probe_llc
from hpceval.runner.nodeprint import run_nodes
from hpceval.runner.placement import Placement, check_plan
from hpceval.runner.progress import ProgressDisplay
from hpceval.runner.session import RunResult, Session, budget_cut, in_run, remeasure
from hpceval.runner.shares import area_ends, over_share, shares_spent
from hpceval.runner.signals import stoppable
from hpceval.simulate.session import simulated_allocation
from hpceval.slurm import runs as slurm_runs
from hpceval.slurm.alloc import Allocation
from hpceval.store import Store


def plan_context(nranks: Optional[int], place: Optional[Placement] = None) -> PlanContext:
    """What the plan knows of the machine and the allocation: N nodes x K ranks per node from
    the placement (--hosts/--hostfile, --ppn), else from Slurm's allocation, else this machine
    (one node, K = its cores); the launch node's caches and memory stand for every node's."""
    fp = machine_fingerprint()
    sim = simulated_allocation()          # a simulated platform's nodes (docs/simulate.md)
    nodes, ppn = (len(place.hosts), place.ppn) if place else _slurm_nodes()
    return PlanContext(cores=sim["cores_per_node"] if sim else fp["cores"],
                       llc_bytes=llc_bytes(fp["caches"]),
                       mem_available_bytes=sim["memory_bytes"] if sim else mem_available_bytes(),
                       nranks=place.nranks if place else nranks, nodes=nodes, ppn=ppn,
                       simulated=sim is not None,
                       host_memory_bytes=mem_available_bytes() if sim else 0,
                       unbuilt=partial(unbuilt, simulated=sim is not None))


def unbuilt(binary: str, simulated: bool) -> Optional[str]:
    """Why this build cannot run hpceval-BINARY (None: it can): the build left it out
    (buildinfo.json says why: dense without ScaLAPACK), or its threads need
    MPI_THREAD_FUNNELED, which SMPI's single-threaded ranks do not provide."""
    why = paths.left_out(binary)
    if why is None and simulated and binary in THREADED:
        why = "SMPI provides no MPI_THREAD_FUNNELED for its threads"
    return why


def _slurm_nodes():
    alloc = Allocation.from_env()
    if alloc is None:
        return 1, None
    return alloc.nnodes, max(min(alloc.tasks_per_node or [1]), 1)


def _plan(targets: Sequence[str], sets: Sequence[str], ctx: PlanContext,
          trace: bool, budget_s: Optional[float] = None) -> List[LaunchSpec]:
    del ctx.notes[:]
    specs = _built(plan_targets(targets, sets, ctx, budget_s), ctx)
    for spec in specs:
        spec.trace = spec.trace or trace
    return specs


def _built(specs: List[LaunchSpec], ctx: PlanContext) -> List[LaunchSpec]:
    """The launches whose binary the build has: what plan_targets did not leave out whole
    (an entry with a binary the build lacks beside one it has), noted; a plan of nothing else
    keeps them, and is refused with the reason (paths.binary)."""
    gone = {s.binary: why for s in specs if ctx.unbuilt and (why := ctx.unbuilt(s.binary))}
    if not gone or set(gone) == {s.binary for s in specs}:
        return specs
    for binary, why in sorted(gone.items()):
        ctx.note(unbuilt_note(binary, why))
    return [s for s in specs if s.binary not in gone]


# The binaries whose threads need MPI_THREAD_FUNNELED (csrc/mem): not under SMPI
THREADED = frozenset({"stream", "mem-bandwidth", "mem-contention"})
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


@stoppable
def run_plan(targets: Sequence[str], *, sets: Sequence[str] = (), nranks: Optional[int] = None,
             db: str, launcher_choice: str = "auto", tags: Sequence[str] = (),
             timeout_s: Optional[float] = None, progress: Optional[ProgressDisplay] = None,
             trace: bool = False, headlines: Optional[Callable] = None,
             llc: str = "probe", place: Optional[Placement] = None,
             budget_s: Optional[float] = None) -> RunResult:
    """Plan, launch and store; with `headlines` (records -> the headline records), re-measure
    the headline points that came out disturbed or unconverged. `llc`: 'probe' checks the
    reported last-level cache before planning memory benchmarks, 'reported' trusts it. A stop
    signal at any moment ends it (Interrupted): before the run is opened nothing is stored,
    after it the run is marked interrupted. A --budget counts from here, probes included."""
    deadline = None if budget_s is None else time.monotonic() + budget_s
    if nranks is not None and nranks < 1:
        raise UsageError(f"--np {nranks}: need at least 1 rank")
    if llc not in LLC_CHOICES:
        raise UsageError(f"--llc {llc}: expected one of {', '.join(LLC_CHOICES)}")
    nranks = slurm_runs.default_ranks(nranks)
    ctx = plan_context(nranks, place)
    launcher = find_launcher(launcher_choice, ctx.cores)
    if place is None and nranks:
        check_ranks(nranks, launcher)                 # said before planning memory for them
    simulated = getattr(launcher, "simulated", False)
    learn_costs(ctx, db, launcher.sim if simulated else None,
                str(paths.binary("p2p")) if simulated else None, create=simulated)
    left = lambda: None if deadline is None else max(deadline - time.monotonic(), 1.0)
    specs = _plan(targets, sets, ctx, trace, left())  # bad settings fail here, before any run
    for binary in {s.binary for s in specs}:
        paths.binary(binary)
    if any(s.trace for s in specs):
        paths.trace_library()                         # missing: one line now, not mid-run
    if place is None:
        check_ranks(max((s.nranks for s in specs), default=0), launcher)   # all on this host
    check_plan(launcher, place, [s.nranks for s in specs])
    cache = _llc("reported" if getattr(launcher, "simulated", False) else llc, specs, launcher,
                 ctx)
    nodes, launch_s = _timed(lambda: run_nodes(launcher, place, timeout_s))
    if budget_s is not None and nodes is not None:
        ctx.launch_s = launch_s         # this allocation's start-up, not the model's
    if (cache is not None and cache.used != ctx.llc_bytes) or ctx.launch_s is not None:
        ctx.llc_bytes = cache.used if cache is not None else ctx.llc_bytes
        specs = _plan(targets, sets, ctx, trace, left())   # what the probes left of it
    for note in ctx.notes:
        sys.stderr.write(f"hpceval: plan: {note}\n")
    fingerprint = machine_fingerprint(launcher.describe())
    store = Store(db)
    suite = "+".join(targets)
    settings = {"sets": list(sets), "np": nranks, "launcher": launcher_choice,
                "timeout_s": timeout_s, "trace": trace,
                "build": str(paths.bin_dir()),          # which C core: pip's, hpceval build's, ...
                "build_stale": stale_build(paths.bin_dir()),    # ... made from older sources
                "placement": place.settings() if place else None,
                "nodes": nodes,
                "llc": cache.settings() if cache else {"used": ctx.llc_bytes, "source": "reported"},
                "budget_s": budget_s, "plan_notes": list(ctx.notes),
                "allocation": {"nodes": ctx.nodes, "ppn": ctx.per_node},
                **slurm_runs.job_settings()}
    display = progress or ProgressDisplay(len(specs))
    return in_run(store, lambda: slurm_runs.open_run(store, suite, tags, fingerprint,
                                                     shlex.join(sys.argv), settings),
                  lambda run_id: _launch_run(Session(store, run_id, launcher, ctx, display,
                                                     timeout_s, place, deadline),
                                             specs, headlines))


def _launch_run(session: Session, specs: List[LaunchSpec],
                headlines: Optional[Callable]) -> Tuple[str, Optional[str], RunResult]:
    """Every launch of the opened run and the re-measuring: its status, why it stopped short
    (None when it did not), the result."""
    run_id = session.run_id
    result = RunResult(run_id, "ok")
    with session.display:
        status = launch_all(session, specs, result)
        if headlines is not None and status == "ok" and not session.spent():
            status = remeasure(session, headlines, result)
    if result.left_out:
        session.store.set_settings(run_id, {"left_out": result.left_out})
    result.status = status
    return status, result.reason, result


def learn_costs(ctx: PlanContext, db: str, sim: Optional[dict], binary: Optional[str],
                create: bool = True) -> None:
    """What a launch costs here, from the store's earlier launches on this host: a simulated
    one's wall time (hpceval/simulate/cost.py: smpirun's start-up measured once with `binary`,
    else as calibration.json keeps it; the cost of a result learned), a real one's start-up
    fitted (budget.fit_startup). Without `create` a missing database leaves the models as they
    are (a real run makes it later, after planning; a dry run never)."""
    from hpceval.simulate.cost import sim_cost
    try:
        store = Store(db, create=create)
    except UsageError:
        if create:
            raise
        store = None
    try:
        if sim is not None:
            ctx.sim_cost = sim_cost(sim, binary, store, *sim_declared(), trends=sim_trends())
        elif store is not None:
            ctx.startup_fit = fit_startup(store.real_launches(socket.gethostname()))
    finally:
        if store is not None:
            store.close()


def _timed(fn):
    start = time.monotonic()
    return fn(), time.monotonic() - start


def launch_all(session: Session, specs: List[LaunchSpec], result: RunResult) -> str:
    """Every planned launch in order; the run's status. In a Slurm job it stops (timeout, the
    reason naming the launches left out) when the time left cannot hold the next launch's
    estimate, or when the job's end cut a launch short (hpceval/runner/jobtime.py). A run
    with a --budget stops (incomplete) when what is left of it cannot hold the next launch's
    estimate (the plan was fitted to it, so only a machine slower than the estimates gets
    there), or when its end cut a launch short (Session.launch); it says what it left out.
    Before that, a launch whose area has spent its share of the budget is passed over and the
    run goes on with the next area (hpceval/runner/shares.py); after the last area, those
    passed over are launched in order where what is left of the budget holds them (the tenth
    hour at 1,024 simulated ranks passed over pop-step's top, 194 s, and ended 219 s early)."""
    ends = area_ends(session.ctx.areas, session.deadline)
    passed: List[LaunchSpec] = []       # passed over: their area had spent its share
    for i, spec in enumerate(specs):
        if session.spent(estimate_s(spec)):
            return _incomplete(result, f"{spec.label} may take {estimate_s(spec):.0f} s",
                               passed + specs[i:])
        if over_share(spec, specs[i + 1:], ends, time.monotonic()):
            passed.append(spec)
            continue
        stop = _launch_one(session, spec, specs[i + 1:], passed, result)
        if stop:
            return stop
    left: List[LaunchSpec] = []         # passed over, and what is left does not hold them
    for k, spec in enumerate(passed):
        if session.spent(estimate_s(spec)):
            left.append(spec)
            continue
        stop = _launch_one(session, spec, passed[k + 1:], left, result)
        if stop:
            return stop
    if result.failures or result.usage_errors:
        result.left_out = [s.label for s in left]
        return "failed"
    if left:
        result.reason, result.left_out = shares_spent(left), [s.label for s in left]
        return "incomplete"
    return "ok"


def _launch_one(session: Session, spec: LaunchSpec, rest: List[LaunchSpec],
                passed: List[LaunchSpec], result: RunResult) -> Optional[str]:
    """One launch, its failure noted in `result`; the run's status where it must stop there
    (`rest`: the launches after it, `passed`: those passed over), else None."""
    why = jobtime.no_room(session.clock, spec)
    if why:
        return result.timed_out(jobtime.left_out(why, [spec, *rest]), [spec, *rest])
    out = session.launch(spec)
    if budget_cut(out):
        return _incomplete(result, f"{spec.label} was ended after {out.elapsed_s:.0f} s",
                           passed + rest)
    if out.status == "interrupted":
        raise Interrupted(out.signum)
    if out.status == "timeout" and session.clock.ending():   # the job's end, not a hang
        why = jobtime.cut_short(session.clock, spec, out.elapsed_s)
        return result.timed_out(jobtime.left_out(why, rest), rest)
    if out.status != "ok":
        (result.usage_errors if out.usage_error else result.failures).append(
            f"{spec.label}: {out.message}")
    return None


def _incomplete(result: RunResult, why: str, rest: List[LaunchSpec]) -> str:
    """The --budget is spent: why, and the launches not made (kept in the run's settings)."""
    result.reason = jobtime.left_out(why, rest, "at the end of the --budget")
    result.left_out = [s.label for s in rest]
    return "incomplete"
