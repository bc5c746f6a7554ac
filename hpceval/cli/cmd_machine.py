"""hpceval machine: this machine's fingerprint alone."""
from __future__ import annotations

import argparse
import json
from typing import Any, Dict

from rich.markup import escape
from rich.table import Table

from hpceval.cli.common import console
from hpceval.errors import UsageError
from hpceval.fingerprint import machine_fingerprint
from hpceval.launch import find_launcher
from hpceval.catalog import format_size

NAME = "machine"
HELP = "print this machine's fingerprint (hardware, OS, MPI, compiler, environment)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="as JSON")


def fingerprint_table(fp: Dict[str, Any]) -> Table:
    t = Table(title="fingerprint", title_justify="left", show_header=False)
    t.add_column("key")
    t.add_column("value")
    caches = ", ".join(f"L{c['level']}{'d' if c['type'] == 'Data' else ''} "
                       f"{format_size(c['size_bytes']) if c.get('size_bytes') else '?'}"
                       for c in fp.get("caches", []))
    mpi = fp.get("mpi") or {}
    comp = fp.get("compiler") or {}
    rows = [
        ("host", fp.get("hostname")), ("cpu", fp.get("cpu_model")),
        ("sockets / cores / threads", f"{fp.get('sockets')} / {fp.get('cores')} / {fp.get('threads')}"),
        ("NUMA nodes", fp.get("numa_nodes")), ("caches", caches),
        ("memory", f"{(fp.get('memory_bytes') or 0) / 2**30:.1f} GiB"),
        ("OS / kernel", f"{fp.get('os')} / {fp.get('kernel')}"),
        ("THP / governor", f"{fp.get('thp')} / {fp.get('cpu_governor')}"),
        ("MPI", f"{mpi.get('flavour', '-')} {mpi.get('version', '')} ({mpi.get('launcher', '-')})"),
        ("compiler", f"{comp.get('compiler', '-')} {comp.get('cflags', '')}"),
        ("environment", " ".join(f"{k}={v}" for k, v in (fp.get("environment") or {}).items()) or "-"),
        ("hash", (fp.get("hash") or "")[:16]),
    ]
    for k, v in rows:
        t.add_row(k, escape(str(v)))
    return t


def execute(args: argparse.Namespace) -> int:
    try:
        mpi = find_launcher("auto", 1).describe()
    except UsageError as exc:
        mpi = {"error": str(exc)}
    fp = machine_fingerprint(mpi)
    if args.json:
        print(json.dumps(fp, indent=2))
    else:
        console().print(fingerprint_table(fp))
    return 0
