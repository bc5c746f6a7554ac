#!/usr/bin/env python3
"""How well the simulated-launch cost model (hpceval/simulate/cost.py) estimates a rung it has
not learned yet (issue #45 item 2): every simulated launch of a study store at a rank count
beyond any its problem had run at before, estimated from the launches before it alone, three
ways: the problem's median over every rank count, the nearest learned rung below, and that
rung with the model's TREND (what SimCost.each does now).

    python3 benchmarks/sim_cost_backtest.py STUDY.sqlite

Prints a Markdown table (estimate / took per launch) and, per estimator, the median and mean
|log(estimate / took)|, the time-weighted ratio and the count under 0.7 (docs/study.md)."""
from __future__ import annotations

import math
import sqlite3
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from hpceval.catalog.registry import sim_declared  # noqa: E402
from hpceval.simulate.cost import (GROWTH_LIST, RUNG_FROM, SimCost, Learned, busy,  # noqa: E402
                                   covers, growth, problem)

LAUNCHES = """SELECT l.benchmark, l.label, l.nranks, l.elapsed_s, l.startup_s, l.run_id,
  (SELECT count(*) FROM records r WHERE r.launch_id = l.id) FROM launches l
  WHERE l.status IN ('ok', 'timeout') AND l.startup_s IS NOT NULL ORDER BY l.id"""


def model(history):
    """A SimCost knowing only `history` [(problem, ranks, cost)], TREND as the module has it,
    and the same without the trend."""
    rungs, problems = {}, {}
    for p, q, c in reversed(history):                  # latest first, as the store reads
        if len(rungs.setdefault((p, q), [])) < RUNG_FROM:
            rungs[(p, q)].append(c)
        problems.setdefault(p, []).append(c)
    fine = Learned({}, {k: statistics.median(v) for k, v in problems.items()},
                   {k: statistics.median(v) for k, v in rungs.items()})
    return SimCost(0, 0, {}, fine=fine)


def backtest(db: sqlite3.Connection):
    _, busy_ranks = sim_declared()
    history, rows = [], []
    for bench, label, nranks, took, startup, run, n in db.execute(LAUNCHES):
        if not n:
            continue
        b = max(busy(bench, label, nranks, busy_ranks), 1)
        cost = max(took - startup, 0.0) / (n * b * growth(b, GROWTH_LIST))
        p = problem(label)
        seen = [q for pp, q, _ in history if covers(pp, p)]
        if seen and nranks > max(seen) and nranks > 32:
            m = model(history)
            ways = (m.problem_cost(p), m.below(p, nranks, trend=0.0), m.below(p, nranks))
            rows.append((run, label, nranks, took, *(w / cost if w else None for w in ways)))
        history.append((p, nranks, cost))
    return rows


def main() -> None:
    rows = backtest(sqlite3.connect(sys.argv[1]))
    print("| run | launch | took [s] | problem median | nearest below | with trend |")
    print("|---|---|---|---|---|---|")
    for run, label, _, took, *ratios in rows:
        print(f"| {run} | {label} | {took:.0f} | "
              + " | ".join(f"{r:.2f}" if r else "-" for r in ratios) + " |")
    for i, name in enumerate(("problem median", "nearest below", "with trend")):
        got = [(r[4 + i], r[3]) for r in rows if r[4 + i]]
        logs = [abs(math.log(x)) for x, _ in got]
        weighted = sum(x * t for x, t in got) / sum(t for _, t in got)
        print(f"{name}: median |log| {statistics.median(logs):.2f}, mean {statistics.mean(logs):.2f}"
              f", time-weighted {weighted:.2f}x, under 0.7x {sum(x < 0.7 for x, _ in got)}"
              f" of {len(got)}")


if __name__ == "__main__":
    main()
