"""The tuned-algorithm table in the report: per proxy with several choices measured on the same
problem and rank count, the best, its margin over the runner-up and whether it is significant
(hpceval/analysis/tune.py; `hpceval tune` measures every choice)."""
from __future__ import annotations

from typing import Optional

from hpceval.analysis.tune import TUNABLE, tuned_table

from .data import fmt_num
from .figures_proxies import SECTION
from .registry import Table, TableSpec, register_table


def _table(bench: str):
    def make(run: dict) -> Optional[Table]:
        rows = tuned_table(run.get("records") or [], bench)
        if not rows:
            return None
        return Table(["problem", "ranks", "best choice", "time", "runner-up", "margin",
                      "significant", "candidates"],
                     [[" ".join(f"{k}={v}" for k, v in r["problem"].items()), str(r["ranks"]),
                       r["best_name"] + (" (best changes here)" if r["changed"] else ""),
                       f"{fmt_num(r['best_time'])} {r['unit']}", r["runner_up_name"],
                       f"{100 * r['margin']:.1f}%", "yes" if r["significant"] else "no",
                       str(r["candidates"])] for r in rows],
                     "The fastest measured choice per problem and rank count (median time); "
                     "margin = runner-up / best - 1; significant when the two medians' 95% CIs "
                     "do not overlap. 'hpceval tune' measures every choice and writes this "
                     "table as JSON.")
    return make


for _bench in sorted(TUNABLE):
    register_table(TableSpec(SECTION, f"Tuned algorithm choices: {_bench}", _table(_bench), order=40))
