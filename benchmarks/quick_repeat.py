#!/usr/bin/env python3
"""Two (or more) `hpceval run quick` back to back into a private database: how long each took,
and how far apart their headline figures are (the acceptance question: does the same machine
give the same numbers twice in a row?).

    .venv/bin/python benchmarks/quick_repeat.py [--runs 2] [--tolerance 0.05] [--db PATH]
    .venv/bin/python benchmarks/quick_repeat.py --analyse --db PATH

Prints, per headline, each run's value and the largest relative difference from the first run,
marked when it exceeds the tolerance; then, for each run against the one before it, what
`hpceval compare` decides over every shared point (issue #52: at least 80% decided, at most 5%
of them called faster or slower on a quiet machine), once from the two runs' samples alone
(`--no-history`) and once widened to the run-to-run spread of the other runs in the database
(docs/compare.md). The exit status is 0 either way (a benchmark, not a test)."""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from hpceval.analysis.headlines import headlines, value  # noqa: E402
from hpceval.store import Store  # noqa: E402
from hpceval.views import load_rows  # noqa: E402

load_rows()          # the headline rows each benchmark's views register


def quick(db: Path) -> float:
    t0 = time.monotonic()
    p = subprocess.run([str(ROOT / ".venv" / "bin" / "hpceval"), "run", "quick", "--db", str(db)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"quick_repeat: hpceval run quick failed: {p.stderr.strip()[-300:]}")
    return time.monotonic() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--tolerance", type=float, default=0.05)
    ap.add_argument("--db", type=Path, default=None)
    ap.add_argument("--analyse", action="store_true",
                    help="run nothing: the tables for every run already in --db")
    a = ap.parse_args()
    if a.analyse and not a.db:
        sys.exit("quick_repeat: --analyse needs --db")
    db = a.db or Path(tempfile.mkdtemp(prefix="hpceval-quick-repeat-")) / "results.sqlite"
    seconds = [] if a.analyse else [quick(db) for _ in range(a.runs)]
    store = Store(str(db))
    ids = store.run_ids() if a.analyse else store.run_ids()[-a.runs:]
    # A row's label may name the configuration it chose ("(fastest: 1x2 ranks, ...)"), which
    # can differ between runs: rows are matched on the label without its parentheses.
    key = lambda label: re.sub(r"\s*\([^)]*\)", "", label)
    rows = [{key(h["label"]): h["record"] for h in headlines(store.get_run(i)["records"])}
            for i in ids]
    print("quick suite wall time: " + ", ".join(f"{s:.1f} s" for s in seconds))
    within = 0
    for label in rows[0]:
        vals = [value(r[label]) if label in r else None for r in rows]
        first = vals[0]
        diff = max((abs(v - first) / first for v in vals[1:] if v is not None and first),
                   default=float("nan"))
        ok = diff <= a.tolerance
        within += ok
        print(f"{label:70s} " + "  ".join(f"{v:10.4g}" if v is not None else "         -"
                                          for v in vals)
              + f"  {100 * diff:5.1f}%{'' if ok else '  > ' + format(a.tolerance, '.0%')}")
    print(f"{within} of {len(rows[0])} headlines within {a.tolerance:.0%}; database {db}")
    for history in (False, True):
        print("intervals " + ("widened to the run-to-run spread of the database's other runs of "
                              "this machine" if history else "from the two runs' samples only "
                              "(--no-history)"))
        for before, after in zip(ids, ids[1:]):
            verdicts(db, before, after, a.tolerance, history)


def verdicts(db: Path, before: int, after: int, tolerance: float, history: bool) -> None:
    """compare AFTER against BEFORE over every shared point: how many it decided."""
    p = subprocess.run([str(ROOT / ".venv" / "bin" / "hpceval"), "compare", str(before),
                        str(after), "--json", "--tolerance", str(tolerance), "--db", str(db),
                        *([] if history else ["--no-history"])],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"quick_repeat: hpceval compare failed: {p.stderr.strip()[-300:]}")
    said = Counter(r["verdicts"][1] for r in json.loads(p.stdout)["rows"])
    decided = said["same"] + said["faster"] + said["slower"]
    moved = said["faster"] + said["slower"]
    total = sum(said.values())
    print(f"compare {after} against {before}: {decided} of {total} shared points decided "
          f"({100 * decided / max(total, 1):.0f}%), {moved} of them faster or slower "
          f"({100 * moved / max(decided, 1):.1f}%; {100 * moved / max(total, 1):.1f}% of all); " + ", ".join(f"{k} {v}" for k, v in
                                                               sorted(said.items())))


if __name__ == "__main__":
    main()
