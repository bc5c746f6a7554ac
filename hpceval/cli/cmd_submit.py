"""hpceval submit: run suites or benchmarks as a Slurm batch job (docs/slurm.md)."""
from __future__ import annotations

import argparse
import shlex
import sys
from typing import List, Optional

from hpceval.catalog import plan_targets
from hpceval.cli.common import (add_db, console, db_path, headline_table, tag_text,
                                timeout_seconds, whole_number)
from hpceval.errors import BenchmarkFailed, UsageError
from hpceval.runner import LLC_CHOICES, plan_context
from hpceval.catalog.estimate import estimate_s
from hpceval.runner.dryrun import fmt_duration
from hpceval.catalog.params import YEAR_S
from hpceval.slurm.clock import JobClock, slurm_seconds
from hpceval.slurm.follow import follow
from hpceval.slurm.script import JobRequest, job_name
from hpceval.slurm.submit import dry_run, submit
from hpceval.store import Store

NAME = "submit"
HELP = "run suites or benchmarks as a Slurm batch job (sbatch); results land in the database"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("targets", nargs="+", metavar="SUITE|BENCHMARK", help="see 'hpceval list'")
    p.add_argument("--nodes", type=whole_number, required=True, metavar="N", help="nodes of the job")
    p.add_argument("--ppn", type=whole_number, default=None, metavar="K", help="tasks per node")
    for name, what in (("partition", "P"), ("account", "A"), ("qos", "Q")):
        p.add_argument(f"--{name}", default=None, metavar=what, help=f"sbatch --{name}")
    p.add_argument("--time", type=slurm_time, default=None, metavar="T",
                   help="sbatch --time: M, M:S, H:M:S, D-H, D-H:M or D-H:M:S (docs/slurm.md)")
    p.add_argument("--sbatch-arg", action="append", default=[], metavar="ARG",
                   dest="sbatch_args", help="one more sbatch option, e.g. --sbatch-arg=--exclusive")
    p.add_argument("--wait", action="store_true", help="follow the job and print its summary")
    p.add_argument("--dry-run", action="store_true", help="print the job script, submit nothing")
    add_db(p)
    # Passed on to the job's `hpceval run`.
    p.add_argument("--np", type=whole_number, default=None, metavar="N",
                   help="MPI ranks (default: the job's tasks)")
    p.add_argument("--tag", action="append", default=[], type=tag_text, metavar="TEXT", help="label the run")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="sets",
                   help="set a benchmark parameter")
    p.add_argument("--timeout", type=timeout_seconds, default=None, metavar="S",
                   help="time limit per launch in seconds")
    p.add_argument("--llc", choices=LLC_CHOICES, default=None, help="as for run")
    p.add_argument("--no-remeasure", action="store_true", help="as for run")


def slurm_time(text: str) -> str:
    """argparse type of --time: one of sbatch's forms, as given (#SBATCH --time=TEXT). Refused
    here rather than by sbatch, which a dry run never asks: text that is none of them; no limit
    (0, UNLIMITED: a job that states no end cannot be backfilled, and the job's clock would
    cap nothing; leave --time out for the partition's default); more than a year (a typo)."""
    try:
        seconds = slurm_seconds(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text[:40]!r}: {exc}") from None
    if seconds is None or seconds == 0:
        raise argparse.ArgumentTypeError(
            f"{text}: Slurm reads it as no time limit; give the job one (or leave --time out "
            "for the partition's default)")
    if seconds > YEAR_S:
        raise argparse.ArgumentTypeError(f"{text}: more than a year")
    return text


def _check(args: argparse.Namespace) -> float:
    """Bad input fails here with one line, before anything is written or submitted; what only
    Slurm can judge (partition, node count, --time, sbatch options) sbatch --test-only does.
    Returns the plan's estimate in seconds (planned here: the nodes may plan differently)."""
    if args.nodes < 1 or (args.ppn is not None and args.ppn < 1):
        raise UsageError("--nodes and --ppn must be at least 1")
    specs = plan_targets(args.targets, args.sets, plan_context(args.np))  # unknown names, --set
    return sum(estimate_s(s) for s in specs)


def _time_note(time: Optional[str], estimate: float) -> Optional[str]:
    """A note when the plan's estimate does not fit in --time (the job leaves launches out)."""
    limit = slurm_seconds(time) if time else None
    margin = JobClock(job_id="").margin_s
    if limit is None or estimate <= limit - margin:
        return None
    return (f"note: the plan's estimate, {fmt_duration(estimate)} (every point spending its "
            f"whole budget), exceeds --time {time} less {margin:g} s: the job starts only the "
            "launches that fit and names those it leaves out (docs/slurm.md)")


def run_argv(args: argparse.Namespace) -> List[str]:
    argv = list(args.targets)
    for flag, values in (("--tag", args.tag), ("--set", args.sets)):
        for v in values:
            argv += [flag, v]
    for flag, value in (("--np", args.np), ("--timeout", args.timeout), ("--llc", args.llc)):
        if value is not None:
            argv += [flag, str(value)]
    return argv + (["--no-remeasure"] if args.no_remeasure else [])


def execute(args: argparse.Namespace) -> int:
    estimate = _check(args)
    request = JobRequest(args.nodes, args.ppn, args.partition, args.time, args.account,
                         args.qos, args.sbatch_args, job_name(args.targets))
    db = db_path(args)
    if args.dry_run:
        sys.stdout.write(dry_run(request, run_argv(args), db))
        return 0
    done = submit(request, run_argv(args), "+".join(args.targets), args.tag, db,
                  shlex.join(sys.argv))
    print(f"submitted job {done.job_id}: run {done.run_id} in {db} (script {done.script})",
          flush=True)
    note = _time_note(args.time, estimate)
    if note:
        print(note, flush=True)
    if not args.wait:
        return 0
    row = follow(db, done.run_id, done.job_id, say=lambda l: print(l, flush=True))
    store = Store(db)
    run = store.get_run(done.run_id, traces=False)
    store.close()
    con = console()
    con.print(headline_table(run["records"], f"run {run['id']} ({run['suite']}), "
                             f"job {done.job_id}: {row['status']}", width=con.width))
    print(f"run id: {run['id']}  ({len(run['records'])} records in {db})")
    if row["status"] != "ok":
        raise BenchmarkFailed(f"run {run['id']} {row['status']}"
                              + (f": {row['reason']}" if row.get("reason") else ""))
    return 0
