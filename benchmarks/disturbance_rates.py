#!/usr/bin/env python3
"""How often the disturbance flag is raised on a quiet machine, and how often it (or a dropped
sample) catches a planted disturbance (issue #52, item 1).

Each round runs `hpceval run quick` into a scratch database, in one of three conditions:

- quiet: nothing else started. Judged quiet by an independent criterion: the CPU time that
  processes outside the run used meanwhile (all CPUs' busy time in /proc/stat, less the run's
  own CPU time, its children's rusage) stays under --quiet-share of one CPU;
- hog: one busy process (`sh` in a loop, no Python) pinned to each CPU for the whole run: every
  rank shares its core with another runnable process;
- one-hog: one busy process pinned to the last CPU only;
- inject-slow-core, inject-preempted: `--set inject=...`: the harness makes the last rank's core
  probe do twice the work when a window closes, or reports every third sample of the last rank
  as preempted (csrc/harness/harness.h).

Per round: points, points flagged disturbed (by reason), points that set samples aside, the
samples dropped of those taken, the core probe's percentiles. In a planted round a point is
*caught* when it is flagged or dropped samples; and *moved* when its median lies more than 10%
outside the range of the quiet rounds' medians of the same point: a moved point that was not
caught is a miss (`missed`). `--no-remeasure` keeps each point's first measurement
(re-measuring replaces a flagged point with a later try).

    python3 benchmarks/disturbance_rates.py [--rounds quiet,quiet,hog,one-hog,inject-slow-core]
                                            [--json OUT] [--keep DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HPCEVAL = [sys.executable, "-m", "hpceval"]


def busy_jiffies() -> int:
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return v[0] + v[1] + v[2] + v[5] + v[6]       # user nice system irq softirq (not idle, iowait, steal)


def children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def hogs(condition: str):
    cpus = sorted(os.sched_getaffinity(0))
    pinned = {"hog": cpus, "one-hog": cpus[-1:]}.get(condition, [])
    return [subprocess.Popen(["taskset", "-c", str(c), "sh", "-c", "while :; do :; done"])
            for c in pinned]


def one_round(condition: str, workdir: Path):
    db = workdir / f"{condition}-{time.time_ns()}.sqlite"
    db.unlink(missing_ok=True)
    procs = hogs(condition)
    hz = os.sysconf("SC_CLK_TCK")
    j0, c0, t0 = busy_jiffies(), children_cpu(), time.monotonic()
    try:
        inject = ["--set", f"inject={condition[7:]}"] if condition.startswith("inject-") else []
        p = subprocess.run([*HPCEVAL, "run", "quick", "--no-remeasure", "--db", str(db), *inject],
                           cwd=ROOT, capture_output=True, text=True)
        # before the hogs are reaped: their CPU time is not the run's children's
        wall = time.monotonic() - t0
        others = (busy_jiffies() - j0) / hz - (children_cpu() - c0)
    finally:
        for h in procs:
            h.kill()
            h.wait()
    row = {"condition": condition, "exit": p.returncode, "wall_s": round(wall, 1),
           "others_cpu_share": round(max(others, 0) / wall, 3)}
    row.update(tally(db))
    return row, db


def tally(db: Path) -> dict:
    con = sqlite3.connect(db)
    rows = con.execute("select n, json_extract(extra, '$.disturbed'), "
                       "json_extract(extra, '$.dropped') from records").fetchall()
    slower = sorted(v for (v,) in con.execute(
        "select json_extract(extra, '$.quiet.core_slower') from records") if v is not None)
    reasons = Counter()
    dropped = taken = setting_aside = flagged = caught = 0
    for n, why, drop in rows:
        drop = drop or 0
        taken += n + drop
        dropped += drop
        setting_aside += drop > 0
        if isinstance(why, str) and why:
            flagged += 1
            reasons[reason_kind(why)] += 1
        caught += bool(drop) or (isinstance(why, str) and bool(why))
    pct = {f"core_slower_p{q}": slower[min(len(slower) - 1, len(slower) * q // 100)]
           for q in (50, 90, 99)} if slower else {}
    return {"points": len(rows), "flagged": flagged, "set_aside": setting_aside,
            "caught": caught, "dropped": dropped, "taken": taken, "reasons": dict(reasons), **pct}


def medians(db: Path) -> dict:
    con = sqlite3.connect(db)
    return {(b, p, m): med for b, p, m, med in
            con.execute("select benchmark, params, metric, median from records") if med}


def misses(db: Path, quiet: list) -> dict:
    """Points of a planted round whose median moved more than 10% outside the quiet rounds'
    range, and how many of them were caught (flagged, or samples set aside)."""
    con = sqlite3.connect(db)
    moved = caught = 0
    for b, p, m, med, why, drop in con.execute(
            "select benchmark, params, metric, median, json_extract(extra, '$.disturbed'), "
            "json_extract(extra, '$.dropped') from records"):
        qs = [q[(b, p, m)] for q in quiet if (b, p, m) in q]
        if len(qs) < 2 or not med or min(qs) / 1.1 <= med <= max(qs) * 1.1:
            continue
        moved += 1
        caught += bool(drop) or (isinstance(why, str) and bool(why))
    return {"moved": moved, "moved_caught": caught}


def reason_kind(why: str) -> str:
    for key, kind in (("preempted", "preemptions"), ("stole", "steal"), ("core ran", "slow core"),
                      ("cache line", "moved pair"), ("spread", "spread")):
        if key in why:
            return kind
    return "other"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", default="quiet,quiet,hog,one-hog,inject-slow-core")
    ap.add_argument("--quiet-share", type=float, default=0.05,
                    help="most CPU (of one CPU) others may use for a round to count as quiet")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--keep", type=Path, help="keep each round's database in this directory")
    args = ap.parse_args()
    out = []
    quiet = []
    with tempfile.TemporaryDirectory() as tmp:
        for condition in args.rounds.split(","):
            row, db = one_round(condition, args.keep or Path(tmp))
            if condition == "quiet":
                row["quiet_by_cpu"] = row["others_cpu_share"] <= args.quiet_share
                if row["quiet_by_cpu"]:
                    quiet.append(medians(db))
            else:
                row.update(misses(db, quiet))
            out.append(row)
            print(json.dumps(row), flush=True)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
