"""hpceval export: runs as JSON (docs/export.md) or CSV, to stdout; or the traces stored with
traced runs (run --trace) as OTF2 archives in a new directory (docs/trace.md)."""
from __future__ import annotations

import argparse
import csv
import math
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from hpceval import strictjson
from hpceval.cli.common import add_db, no_db_yet, open_store, resolve_runs
from hpceval.outfiles import output_errors
from hpceval.quality import field
from hpceval.errors import UsageError
from hpceval.store import STATS, dump_json
from hpceval.store.samples import SHAPE

NAME = "export"
HELP = ("export runs (all by default) as JSON or CSV on stdout, or their stored traces as OTF2 "
        "archives (--format otf2 -o DIR)")

CSV_COLUMNS = ("run_id", "run_uuid", "started", "suite", "status", "hostname", "benchmark", "params",
               "metric", "unit", "statistic", "better") + STATS + ("converged", "dropped") + SHAPE


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="*", metavar="RUN")
    add_db(p)
    p.add_argument("--format", choices=("json", "csv", "otf2"), default="json")
    p.add_argument("-o", "--output", metavar="DIR", default=None,
                   help="with --format otf2: the new directory for the archives, one per stored "
                        "trace (RUN-N-BENCHMARK/traces.otf2)")


def _cell(v):
    """A statistic as a CSV cell: a value that is not a finite number is an empty cell (a
    spreadsheet reads "nan" or "inf" as text or as a number that was never measured)."""
    return v if isinstance(v, (int, float)) and math.isfinite(v) else ""


def _text(v):
    """A string cell that a spreadsheet would take for a formula (=, +, -, @, or a tab or CR
    before one) is prefixed with a quote, as OWASP's CSV-injection rule says; numbers are not
    strings and stay as they are."""
    if isinstance(v, str) and v[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + v
    return v


def _refuse_nonfinite(runs) -> None:
    """A NaN or infinity (only an old or damaged database holds one: the store takes finite
    records only) is no measurement, and JSON cannot carry it: written as null it would make
    a file that import refuses. Say which run and value instead of writing anything."""
    for run in runs:
        found = strictjson.first_nonfinite(run)
        if found:
            raise UsageError(f"run {run['id']}: {found[0]} is {found[1]}, not a finite number: no "
                             "measurement, and an export cannot carry it; export the other "
                             "runs by naming them")


def _export_otf2(args: argparse.Namespace) -> int:
    from hpceval.trace.chrome import TraceError, check_ranks, validate
    from hpceval.trace.otf2export import check_target, write_otf2
    if not args.output:
        raise UsageError("--format otf2 needs -o DIR (a new directory for the archives)")
    target = check_target(args.output)
    store = open_store(args)
    runs = [store.get_run(i) for i in resolve_runs(store, args.runs, default_all=True)]
    traces = [(run["id"], n, t) for run in runs for n, t in enumerate(run["traces"], 1)]
    if not traces:
        raise UsageError("no stored traces in these runs (record them with 'hpceval run --trace')")
    for run_id, n, t in traces:
        try:
            validate(t["trace"])
            check_ranks(t["trace"])
        except TraceError as exc:
            raise UsageError(f"run {run_id}: stored trace {n} is damaged: {exc}") from None
    # All archives are built in a sibling directory renamed into place: all or nothing.
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.resolve().parent))
    try:
        for run_id, n, t in traces:
            # a plain file name whatever the stored benchmark name says
            name = re.sub(r"[^A-Za-z0-9._+-]", "_", str(t["benchmark"]))[:64].lstrip(".")
            write_otf2(t["trace"], work / f"{run_id}-{n}-{name}")
        with output_errors(f"-o {target}"):
            os.rename(work, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"wrote {len(traces)} OTF2 archive{'s' if len(traces) != 1 else ''} to {target}")
    return 0


def execute(args: argparse.Namespace) -> int:
    if args.format == "otf2":
        return _export_otf2(args)
    if args.output:
        raise UsageError("-o is for --format otf2 (JSON and CSV go to stdout)")
    if not args.runs and no_db_yet(args):
        runs = []                      # nothing stored yet: an empty export, and no new file
    else:
        store = open_store(args)
        runs = [store.get_run(i, samples=args.format == "json")
                for i in resolve_runs(store, args.runs, default_all=True)]
    if args.format == "json":
        _refuse_nonfinite(runs)
        dump_json(runs, sys.stdout)
        return 0
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for run in runs:
        for r in run["records"]:
            w.writerow([*map(_text, (run["id"], run["uuid"], run["started"], run["suite"],
                                     run["status"], run["fingerprint"].get("hostname"),
                                     r["benchmark"], json.dumps(r["params"], sort_keys=True),
                                     r["metric"], r["unit"], r["statistic"], r["better"])),
                        *(_cell(r["stats"][k]) for k in STATS), int(r["converged"]),
                        _cell(field(r, "dropped")),
                        *(_cell(r["stats"].get(k)) for k in SHAPE)])
    return 0
