"""hpceval runs: stored runs, one line each."""
from __future__ import annotations

import argparse
import os

from hpceval.cli.common import add_db, db_path, open_store

NAME = "runs"
HELP = "list stored runs"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_db(p)


def execute(args: argparse.Namespace) -> int:
    path = db_path(args)
    if not os.path.exists(path):               # listing creates nothing
        print(f"no runs in {path}")
        return 0
    runs = open_store(args).list_runs()
    if not runs:
        print(f"no runs in {path}")
    for r in runs:
        tags = ",".join(r["tags"]) or "-"
        print(f"{r['id']:>5}  {r['started']}  {r['status']:<11} {r['suite']:<24} "
              f"{r['hostname']:<20} {r['nrecords']:>5} records  tags={tags}")
    return 0
