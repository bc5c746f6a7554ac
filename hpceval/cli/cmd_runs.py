"""hpceval runs: stored runs, one line each."""
from __future__ import annotations

import argparse

from hpceval.cli.common import add_db, db_path, no_db_yet, open_store, printable
from hpceval.slurm.jobstate import reconcile_all

NAME = "runs"
HELP = "list stored runs"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_db(p)


def execute(args: argparse.Namespace) -> int:
    path = db_path(args)
    if no_db_yet(args):                        # listing creates nothing
        print(f"no runs in {path}")
        return 0
    store = open_store(args)
    reconcile_all(store)                 # runs of Slurm jobs that ended since: Slurm's word
    runs = store.list_runs()
    if not runs:
        print(f"no runs in {path}")
    for r in runs:
        tags = printable(",".join(r["tags"])) or "-"
        print(f"{r['id']:>5}  {r['started']}  {r['status']:<11} {r['suite']:<24} "
              f"{r['hostname']:<20} {r['nrecords']:>5} records  tags={tags}"
              + (f"  job={r['job_id']}" if r.get("job_id") else "")
              + (f"  ({r['reason']})" if r.get("reason") else ""))
    return 0
