"""hpceval run: plan, launch, store, summarise."""
from __future__ import annotations

import argparse
import json
import os
import sys

from rich.markup import escape
from rich.table import Table

from hpceval import specsheet
from hpceval.analysis.headlines import headline_records
from hpceval.cli.common import (add_db, console, db_path, headline_table, tag_text,
                                timeout_seconds, whole_number)
from hpceval.errors import BenchmarkFailed, UsageError
from hpceval.launch import CHOICES
from hpceval.runner import LLC_CHOICES, plan_context, run_plan
from hpceval.catalog.estimate import startup_note
from hpceval.runner.dryrun import describe, dry_run, fmt_duration, plan_json
from hpceval.runner.run import learn_costs
from hpceval.runner.placement import Placement, check_request, placement_from_args
from hpceval.simulate.session import active
from hpceval.store import Store

NAME = "run"
HELP = "run suites or benchmarks on this machine and store the results"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("targets", nargs="+", metavar="SUITE|BENCHMARK", help="see 'hpceval list'")
    p.add_argument("--np", type=whole_number, default=None, metavar="N",
                   help="MPI ranks for communication benchmarks (default: 2)")
    p.add_argument("--nodes", type=whole_number, default=None, metavar="N",
                   help="nodes to run on: the first N of --hosts/--hostfile (default: all)")
    p.add_argument("--ppn", type=whole_number, default=None, metavar="K",
                   help="ranks per node (ranks = N x K; default: --np / N, else 1)")
    p.add_argument("--hosts", default=None, metavar="H1,H2,...",
                   help="the nodes, comma-separated (outside Slurm; launched with mpirun/mpiexec)")
    p.add_argument("--hostfile", default=None, metavar="F",
                   help="the nodes, one host name a line ('#' comments, 'slots=' ignored)")
    add_db(p)
    p.add_argument("--launcher", choices=CHOICES, default="auto",
                   help="MPI launcher (auto: srun inside Slurm, else mpirun/mpiexec)")
    p.add_argument("--tag", action="append", default=[], type=tag_text, metavar="TEXT", help="label the run (repeatable)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="sets",
                   help="set a benchmark parameter (BENCHMARK.NAME=VALUE for one benchmark)")
    p.add_argument("--timeout", type=timeout_seconds, default=None, metavar="S",
                   help="time limit per launch in seconds (default: from the plan)")
    p.add_argument("--llc", choices=LLC_CHOICES, default="probe",
                   help="last-level cache that sizes memory arrays: probe (check the reported "
                        "one with a quick latency curve; VMs often report the host's) or reported")
    p.add_argument("--no-remeasure", action="store_true",
                   help="do not measure disturbed or unconverged headline points again")
    p.add_argument("--dry-run", action="store_true",
                   help="print the launches the run would make and an estimate of its duration "
                        "(nothing is launched or stored)")
    p.add_argument("--budget", metavar="DURATION", default=None,
                   help="fit the plan to this time (90s, 10m, 1h): divided over the areas, "
                        "shorter point budgets, then thinner rank ladders; what is left out is "
                        "said (study: default the Slurm job's time left, else 1h)")
    p.add_argument("--json", action="store_true",
                   help="with --dry-run: the plan as JSON (launches with benchmark, ranks, nodes, "
                        "ppn, parameters and estimate_s; the total estimate_s)")
    p.add_argument("--build", metavar="NAME", default=None,
                   help="run a named build of the C core ('hpceval build --name NAME')")
    p.add_argument("--simulate", metavar="nodes=N,ppn=K,...", default=None,
                   help="run on a simulated cluster (SimGrid SMPI): nodes, ppn, latency, "
                        "bandwidth, topology=flat|fat-tree|torus|dragonfly, flops, memory, "
                        "model=ideal|smpi, backbone (flat's shared link; docs/simulate.md)")
    p.add_argument("--platform", metavar="FILE.xml", default=None,
                   help="run on a simulated platform from a SimGrid platform file (hosts in "
                        "order; --nodes, --ppn)")
    p.add_argument("--spec", metavar="FILE", default=None,
                   help="the machine's spec sheet (vendor's nominal figures), stored with the run "
                        "(hpceval spec)")
    p.add_argument("--trace", action="store_true",
                   help="trace every launch (PMPI library, docs/trace.md) and store the traces; "
                        "timings then include the tracing overhead")


def execute(args: argparse.Namespace) -> int:
    if args.json and not args.dry_run:
        raise UsageError("--json is for --dry-run (a run's results: 'hpceval show RUN --json')")
    check_request(args.nodes, args.ppn, args.np)   # before any host list, platform or plan
    budget_s = _budget(args)
    spec = specsheet.load(args.spec) if args.spec else None   # a bad sheet: refused before running
    if args.build:
        _use_build(args.build)
    place = _simulated(args) or placement_from_args(args.nodes, args.ppn, args.hosts,
                                                    args.hostfile, args.np, plan_only=args.dry_run)
    if args.dry_run:
        return _dry_run(args, place, budget_s)
    db = db_path(args)
    result = run_plan(args.targets, sets=args.sets, nranks=args.np, db=db, place=place,
                      budget_s=budget_s,
                      launcher_choice=args.launcher, tags=args.tag, timeout_s=args.timeout,
                      trace=args.trace,
                      headlines=None if args.no_remeasure else headline_records, llc=args.llc)
    store = Store(db)
    if spec:
        store.set_settings(result.run_id, {"spec": spec})
    run = store.get_run(result.run_id, traces=False)
    store.close()
    con = console()
    con.print(headline_table(run["records"], f"run {run['id']} ({run['suite']}): {run['status']}",
                             width=con.width))
    print(f"run id: {run['id']}  ({len(run['records'])} records in {db})")
    if result.usage_errors and not result.failures:
        raise UsageError("; ".join(result.usage_errors))
    if result.failures or result.usage_errors:
        raise BenchmarkFailed(f"run {run['id']} failed: " + "; ".join(result.failures + result.usage_errors))
    if result.status == "timeout":          # in a Slurm job: what did not fit in its time
        raise BenchmarkFailed(f"run {run['id']} timeout: {result.reason}")
    if result.status == "incomplete":       # its --budget spent: kept, and said
        sys.stderr.write(f"hpceval: warning: run {run['id']} incomplete: {result.reason}\n")
    return 0


def _simulated(args: argparse.Namespace):
    """A run on a simulated platform: its placement, the platform active (docs/simulate.md)."""
    if args.simulate is None and args.platform is None:
        return None
    if args.hosts is not None or args.hostfile is not None:
        raise UsageError("--simulate/--platform place ranks on simulated hosts: no --hosts "
                         "or --hostfile")
    if args.launcher not in ("auto", "smpi"):
        raise UsageError(f"--launcher {args.launcher}: a simulated run is launched by smpirun")
    from hpceval.simulate.session import prepare
    args.launcher = "smpi"
    where = prepare(args.simulate, args.platform, args.nodes, args.ppn, args.np, args.dry_run)
    return None if where is None else Placement(*where)


def _use_build(name: str) -> None:
    """Point this run (and its launches) at a named build; its buildinfo.json reaches the
    fingerprint and settings.build says which directory."""
    from hpceval.buildvariants import build_dir, stale_build
    bindir = build_dir(name) / "bin"
    if not (bindir / "buildinfo.json").is_file():
        raise UsageError(f"--build {name}: no such build in {bindir.parent.parent}: make it with "
                         f"'hpceval build --name {name}'")
    if stale_build(bindir):
        print(f"hpceval: warning: build '{name}' was made from other C sources than this "
              f"hpceval's: make it again with 'hpceval build --name {name}'", file=sys.stderr)
    os.environ["HPCEVAL_BINDIR"] = str(bindir)


STUDY_BUDGET_S = 3600.0     # the study outside a job, without --budget


def _budget(args: argparse.Namespace):
    """--budget in seconds; the study's default: the Slurm job's time left (less its margin),
    else an hour. None: the plan as it is."""
    from hpceval.catalog.budget import parse_budget
    if args.budget is not None:
        return parse_budget(args.budget)
    if "study" not in args.targets:
        return None
    from hpceval.slurm.clock import JobClock
    left = JobClock().left()
    return max(left, 60.0) if left is not None else STUDY_BUDGET_S


def _dry_run(args: argparse.Namespace, place, budget_s) -> int:
    """The plan as a table (or JSON) and its estimated duration; no launch, no database."""
    if args.np is not None and args.np < 1:
        raise UsageError(f"--np {args.np}: need at least 1 rank")
    ctx = plan_context(args.np, place)
    if place is not None:        # the nodes of a plan are not this one: K ranks on K cores each
        ctx.cores = max(ctx.cores, place.ppn)
    learn_costs(ctx, db_path(args), active(), None, create=False)   # nothing launched
    launches = dry_run(args.targets, args.sets, ctx, place, budget_s)
    if active() is not None and ctx.sim_cost is None:
        ctx.note("simulated launches estimated as real ones: no SMPI calibration stored for "
                 "this host (calibration.json; a simulated run measures it)")
    ctx.note(startup_note(ctx))
    if args.json:
        json.dump(plan_json(args.targets, launches, ctx, budget_s), sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    table = Table(title=f"dry run: {' + '.join(args.targets)}", title_justify="left")
    for col in ("launch", "ranks", "nodes", "sizes (B)", "budget/point (s)", "results",
                "estimate", "time limit"):
        table.add_column(col)
    for launch in launches:
        table.add_row(*map(escape, describe(launch)))
    console().print(table)
    total = sum(l.estimate_s for l in launches)
    for note in ctx.notes:
        print(f"plan: {note}")
    print(f"{len(launches)} launches, estimated {fmt_duration(total)} ({total:.0f} s: start-up "
          "plus every point spending its whole budget)"
          + (f"; budget {fmt_duration(budget_s)}" if budget_s is not None else ""))
    return 0
