"""hpceval run: plan, launch, store, summarise."""
from __future__ import annotations

import argparse


from hpceval.analysis.headlines import headline_records
from hpceval.cli.common import add_db, console, db_path, headline_table
from hpceval.errors import BenchmarkFailed, UsageError
from hpceval.launch import CHOICES
from hpceval.runner import LLC_CHOICES, run_plan
from hpceval.slurm.runs import interrupt_on_sigterm
from hpceval.store import Store

NAME = "run"
HELP = "run suites or benchmarks on this machine and store the results"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("targets", nargs="+", metavar="SUITE|BENCHMARK", help="see 'hpceval list'")
    p.add_argument("--np", type=int, default=None, metavar="N",
                   help="MPI ranks for communication benchmarks (default: 2)")
    add_db(p)
    p.add_argument("--launcher", choices=CHOICES, default="auto",
                   help="MPI launcher (auto: srun inside Slurm, else mpirun/mpiexec)")
    p.add_argument("--tag", action="append", default=[], metavar="TEXT", help="label the run (repeatable)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="sets",
                   help="set a benchmark parameter (BENCHMARK.NAME=VALUE for one benchmark)")
    p.add_argument("--timeout", type=float, default=None, metavar="S",
                   help="time limit per launch in seconds (default: from the plan)")
    p.add_argument("--llc", choices=LLC_CHOICES, default="probe",
                   help="last-level cache that sizes memory arrays: probe (check the reported "
                        "one with a quick latency curve; VMs often report the host's) or reported")
    p.add_argument("--no-remeasure", action="store_true",
                   help="do not measure disturbed or unconverged headline points again")
    p.add_argument("--trace", action="store_true",
                   help="trace every launch (PMPI library, docs/trace.md) and store the traces; "
                        "timings then include the tracing overhead")


def execute(args: argparse.Namespace) -> int:
    if args.timeout is not None and args.timeout <= 0:
        raise UsageError(f"--timeout {args.timeout:g}: must be positive")
    db = db_path(args)
    interrupt_on_sigterm()
    result = run_plan(args.targets, sets=args.sets, nranks=args.np, db=db,
                      launcher_choice=args.launcher, tags=args.tag, timeout_s=args.timeout,
                      trace=args.trace,
                      headlines=None if args.no_remeasure else headline_records, llc=args.llc)
    store = Store(db)
    run = store.get_run(result.run_id, traces=False)
    store.close()
    table = headline_table(run["records"], f"run {run['id']} ({run['suite']}): {run['status']}")
    console().print(table)
    print(f"run id: {run['id']}  ({len(run['records'])} records in {db})")
    if result.usage_errors and not result.failures:
        raise UsageError("; ".join(result.usage_errors))
    if result.failures or result.usage_errors:
        raise BenchmarkFailed(f"run {run['id']} failed: " + "; ".join(result.failures + result.usage_errors))
    return 0
