"""Run an experiment: one run in the store, every launch of every variant in it, each result
record tagged with its variant, round and copy ("experiment" in the record; stored in its
extra). The launches of a group (copies) start at once, each in a thread of its own that only
waits for its launch; records are checked and stored by the main thread, a launch at a time."""
from __future__ import annotations

import shlex
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional, Tuple

from hpceval.catalog import LaunchSpec
from hpceval.errors import Interrupted
from hpceval.experiment.plan import Step, launch_count
from hpceval.fingerprint import machine_fingerprint
from hpceval.runner.execute import Outcome
from hpceval.runner.procs import end_children
from hpceval.runner.progress import ProgressDisplay
from hpceval.runner.session import in_run, launch_record, run_launch
from hpceval.runner.signals import held, stoppable
from hpceval.slurm import runs as slurm_runs
from hpceval.store import Store


Span = Tuple[float, float]      # a launch's start and end, monotonic seconds


def _one(launcher, spec: LaunchSpec, timeout_s: Optional[float]) -> Tuple[Outcome, Span]:
    """One launch, through the runner's launch path (a builds variant names its build in the
    spec's env), and when it ran."""
    t0 = time.monotonic()
    out = run_launch(launcher, spec, timeout_s or spec.timeout_s)
    return out, (t0, time.monotonic())


def overlap(spans: List[Span]) -> float:
    """The share of the mean launch time during which every copy ran: copies start together
    but each launcher takes its own time to start its rank, so a short launch may miss the
    others (stored with every record; docs/experiments.md)."""
    mean = sum(b - a for a, b in spans) / len(spans)
    common = min(b for _, b in spans) - max(a for a, _ in spans)
    return round(max(common, 0.0) / mean, 3) if mean > 0 else 0.0


def run_group(launcher, group: List[LaunchSpec],
              timeout_s: Optional[float]) -> List[Tuple[Outcome, Span]]:
    """The launches of a group at once; their outcomes in the group's order."""
    if len(group) == 1:
        return [_one(launcher, group[0], timeout_s)]
    with ThreadPoolExecutor(len(group)) as pool:
        futures = [pool.submit(_one, launcher, spec, timeout_s) for spec in group]
        try:
            return [f.result() for f in futures]
        except KeyboardInterrupt:
            end_children()
            raise


def _store(store: Store, run_id: int, spec: LaunchSpec, out: Outcome, tag: Dict[str, Any]) -> None:
    for rec in out.results:
        rec["experiment"] = tag
    with held():                        # stored whole, also when a stop signal comes
        store.add_launch(run_id, launch_record(spec, out), out.results)


def _steps(store: Store, run_id: int, launcher, steps: List[Step], timeout_s, kind: str,
           display: ProgressDisplay) -> List[str]:
    failures: List[str] = []
    for i, step in enumerate(steps, 1):
        label = f"round {step.round} {step.group[0].label}" + (
            f" (+{len(step.group) - 1} copies)" if len(step.group) > 1 else "")
        display.start(i, label, 0)
        done = run_group(launcher, step.group, timeout_s)
        outs, together = [o for o, _ in done], overlap([span for _, span in done])
        for copy, (spec, out) in enumerate(zip(step.group, outs), 1):
            if out.status == "interrupted":
                raise Interrupted(out.signum)
            _store(store, run_id, spec, out, {"kind": kind, "variant": step.variant,
                                              "round": step.round, "copy": copy,
                                              "copies": len(step.group), "overlap": together})
            if out.status != "ok":
                failures.append(f"{spec.label}: {out.message}")
        display.finish(i, label, "ok" if all(o.status == "ok" for o in outs) else "failed",
                       max(o.elapsed_s for o in outs), sum(len(o.results) for o in outs), None)
    return failures


@stoppable
def run_experiment(db: str, launcher, steps: List[Step], settings: Dict[str, Any],
                   tags: List[str], timeout_s: Optional[float]) -> tuple:
    """Open the run, measure every step, close the run: (run id, failures)."""
    kind = settings["kind"]
    store = Store(db)

    def opening() -> int:
        return slurm_runs.open_run(store, f"experiment {kind} {settings['benchmark']}",
                                   [f"experiment:{kind}"] + tags,
                                   machine_fingerprint(launcher.describe()), shlex.join(sys.argv),
                                   {"experiment": settings, "launcher": launcher.flavour})

    def measuring(run_id: int):
        with ProgressDisplay(launch_count(steps)[0]) as display:
            failures = _steps(store, run_id, launcher, steps, timeout_s, kind, display)
        return "failed" if failures else "ok", None, (run_id, failures)
    return in_run(store, opening, measuring)
