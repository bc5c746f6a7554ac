"""hpceval import: add another machine's exported runs to this database."""
from __future__ import annotations

import argparse

from hpceval.cli.common import add_db, open_store
from hpceval.store import import_runs, read_export

NAME = "import"
HELP = "import runs from 'hpceval export --format json' files (checked whole; no duplicates)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="export files (JSON)")
    add_db(p)


def execute(args: argparse.Namespace) -> int:
    # Every file is read and checked before anything is written: one bad file imports nothing.
    runs = [run for f in args.files for run in read_export(f)]
    store = open_store(args, create=True)
    added, skipped = import_runs(store, runs)
    ids = ", ".join(map(str, added)) or "none"
    print(f"imported {len(added)} run{'s' if len(added) != 1 else ''} (ids: {ids})"
          + (f"; {len(skipped)} already present" if skipped else "") + f" into {store.path}")
    return 0
