"""The study's plan at several allocation sizes, without launching anything: launches, the
largest rank count each area reaches, the estimate against the budget, and how long planning
took (the issue's goals: 10,000 ranks in under 10 s, 1,000,000 in under 60 s).

    python3 benchmarks/study_plan.py [--budget 1h] [--alloc 1x16 --alloc 16x64 ...]

Each allocation is NODESxPPN; the plan is `hpceval run study --nodes N --ppn K --dry-run --json`."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ("1x16", "16x64", "100x100", "10000x100")


def plan(nodes: int, ppn: int, budget: str) -> tuple:
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "hpceval", "run", "study", "--nodes", str(nodes),
                        "--ppn", str(ppn), "--budget", budget, "--dry-run", "--json"],
                       capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(p.stdout), time.monotonic() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", default="1h")
    ap.add_argument("--alloc", action="append", default=None, metavar="NODESxPPN")
    args = ap.parse_args()
    print("| ranks | nodes x ppn | launches | estimate (s) | planning (s) | largest rank count per "
          "area |")
    print("|---|---|---|---|---|---|")
    for alloc in args.alloc or DEFAULT:
        nodes, ppn = (int(x) for x in alloc.split("x"))
        doc, took = plan(nodes, ppn, args.budget)
        reach = defaultdict(int)
        for a in doc["areas"]:
            reach[a["area"]] = a["max_ranks"]
        areas = ", ".join(f"{a} {r}" for a, r in reach.items())
        print(f"| {nodes * ppn:,} | {nodes} x {ppn} | {len(doc['launches'])} | "
              f"{doc['estimate_s']:.0f} of {doc['budget_s']:.0f} | {took:.1f} | {areas} |")


if __name__ == "__main__":
    main()
