#!/usr/bin/env python3
"""Scale of the store: how long and how much memory `report`, `compare`, `history`, `export`
and `show` take on a database holding one run of N records (issue 18: 10^5 records in under
30 s and 1 GB each).

The run is synthetic but valid: it goes in through `hpceval import` (so it passes every check of
docs/export.md), and its records are copies of real ones (benchmarks/store_scale_templates.json:
one record of every benchmark/metric/params family of a real comm + memory + column run on a
2-core VM) with the size parameter shifted per copy, so the series are long, with many distinct
points each (the case that made `report` grow to 10 GB: 80,000 records of few series).

    .venv/bin/python benchmarks/store_scale.py [--records 100000] [--dir DIR] [--keep]

Each command runs in its own child process; its wall time, CPU time (user + system: what a
busy shared machine does not inflate) and peak resident memory (the child's ru_maxrss) are
printed as a table. `compare` runs on a second database holding the run
twice (two uuids, the second 5% slower), i.e. 2N records.
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Dict, List

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "store_scale_templates.json"
# The parameter that tells a record's points apart along its series, in order of preference.
SIZE_KEYS = ("bytes", "array_bytes", "nlons", "width", "truncation", "k", "senders", "nranks")
STATS = ("min", "median", "mean", "max", "ci_low", "ci_high")


def _shifted(rec: Dict[str, Any], copy_no: int) -> Dict[str, Any]:
    """A copy of rec one step further along its series: its size parameter moved by copy_no
    (a new distinct point), its times scaled a little (the statistics stay in order)."""
    out = copy.deepcopy(rec)
    params = out["params"]
    key = next((k for k in SIZE_KEYS if isinstance(params.get(k), int)
                and not isinstance(params.get(k), bool)), None)
    if key is None:
        params["copy"] = copy_no            # no size: another configuration instead
    else:
        params[key] = params[key] + copy_no * max(1, params[key] // 64)
    scale = 1.0 + 1e-4 * copy_no
    out["stats"].update({k: out["stats"][k] * scale for k in STATS})
    out["stats"]["stddev"] = out["stats"]["stddev"] * scale
    return out


def synthetic_run(n: int, template: Dict[str, Any]) -> Dict[str, Any]:
    """One run in the export format with n records made from the template run's records."""
    base = template["records"]
    run = {k: v for k, v in template.items() if k not in ("records", "traces", "id")}
    run["uuid"] = str(uuid.uuid4())
    run["tags"] = ["store-scale"]
    run["records"] = [_shifted(base[i % len(base)], i // len(base)) for i in range(n)]
    run["traces"] = []
    return run


def _slower(run: Dict[str, Any]) -> Dict[str, Any]:
    other = copy.deepcopy(run)
    other["uuid"] = str(uuid.uuid4())
    for rec in other["records"]:
        rec["stats"].update({k: rec["stats"][k] * 1.05 for k in STATS})
        rec["stats"]["stddev"] *= 1.05
    return other


def measure(argv: List[str], env: Dict[str, str]) -> Dict[str, Any]:
    """Wall time and peak RSS of one command, run in a fresh child process."""
    probe = ("import resource, subprocess, sys, time\n"
             "t = time.monotonic()\n"
             "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
             "wall = time.monotonic() - t\n"
             "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
             "print(p.returncode, wall, u.ru_utime + u.ru_stime, u.ru_maxrss,"
             " repr(p.stderr.decode()[-300:]))\n")
    out = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True,
                         env=env, check=True).stdout.split(" ", 4)
    return {"rc": int(out[0]), "wall_s": float(out[1]), "cpu_s": float(out[2]),
            "rss_mb": int(out[3]) / 1024, "stderr": out[4].strip()}


def hpceval(*args: str) -> List[str]:
    return [sys.executable, "-m", "hpceval", *args]


def main(argv: List[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--dir", default=None, help="work directory (default: a temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--template", default=str(TEMPLATES), help="an export file whose first run "
                    "gives the record families")
    args = ap.parse_args(argv)
    work = Path(args.dir or tempfile.mkdtemp(prefix="hpceval-store-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HPCEVAL_DB": ""}
    try:
        rows = run_all(args.records, work, Path(args.template), env)
    finally:
        if not args.keep and not args.dir:
            shutil.rmtree(work, ignore_errors=True)
    print_table(args.records, rows)
    return 0 if all(r["rc"] == 0 for _, r in rows) else 1


def run_all(n: int, work: Path, template_path: Path, env: Dict[str, str]) -> List[tuple]:
    template = json.loads(template_path.read_text())[0]
    run = synthetic_run(n, template)
    one, two = work / "one.json", work / "two.json"
    one.write_text(json.dumps([run]))
    two.write_text(json.dumps([_slower(run)]))
    db1, db2 = work / "one-run.sqlite", work / "two-runs.sqlite"
    for db in (db1, db2):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
    steps = [
        ("import", hpceval("import", str(one), "--db", str(db1))),
        ("report", hpceval("report", "--db", str(db1), "-o", str(work / "report.html"))),
        ("history", hpceval("history", "--db", str(db1))),
        ("export", hpceval("export", "--db", str(db1))),
        ("export csv", hpceval("export", "--db", str(db1), "--format", "csv")),
        ("show", hpceval("show", "latest", "--db", str(db1))),
    ]
    rows = [(name, measure(cmd, env)) for name, cmd in steps]
    shutil.copy(db1, db2)
    rows.append(("import 2nd", measure(hpceval("import", str(two), "--db", str(db2)), env)))
    rows.append(("compare", measure(hpceval("compare", "1", "2", "--db", str(db2)), env)))
    rows.append(("compare --all", measure(hpceval("compare", "1", "2", "--all", "--db", str(db2)), env)))
    return rows


def print_table(n: int, rows: List[tuple]) -> None:
    print(f"store scale: one run of {n:,} records (compare: two runs, {2 * n:,} records)")
    print(f"{'command':<14} {'exit':>4} {'wall [s]':>9} {'CPU [s]':>8} {'peak RSS [MB]':>14}")
    for name, r in rows:
        print(f"{name:<14} {r['rc']:>4} {r['wall_s']:>9.1f} {r['cpu_s']:>8.1f} {r['rss_mb']:>14.0f}")
        if r["rc"] != 0:
            print(f"    {r['stderr']}")


if __name__ == "__main__":
    sys.exit(main())
