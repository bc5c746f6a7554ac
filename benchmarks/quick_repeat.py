#!/usr/bin/env python3
"""Two (or more) `hpceval run quick` back to back into a private database: how long each took,
and how far apart their headline figures are (the acceptance question: does the same machine
give the same numbers twice in a row?).

    .venv/bin/python benchmarks/quick_repeat.py [--runs 2] [--tolerance 0.05] [--db PATH]

Prints, per headline, each run's value and the largest relative difference from the first run,
marked when it exceeds the tolerance; the exit status is 0 either way (a benchmark, not a test)."""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from hpceval.analysis.headlines import headlines, value  # noqa: E402
from hpceval.store import Store  # noqa: E402


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
    a = ap.parse_args()
    db = a.db or Path(tempfile.mkdtemp(prefix="hpceval-quick-repeat-")) / "results.sqlite"
    seconds = [quick(db) for _ in range(a.runs)]
    store = Store(str(db))
    ids = store.run_ids()[-a.runs:]
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


if __name__ == "__main__":
    main()
