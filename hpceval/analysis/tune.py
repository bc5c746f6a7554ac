"""The tuned-algorithm table (the IBM p690 talk: CCM/MP-2D "tuned specifically for each problem
size, processor count and system"): per problem and rank count, the fastest measured choice of
algorithm (halo update, global sum, transpose, process grid, rank mapping), its margin over the
runner-up, and whether that margin is significant (the medians' 95% CIs do not overlap:
hpceval.analysis.significance.judge). Over several rank counts, where the best choice changes.

A pure function of records (export format)."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.analysis.headlines import select, value
from hpceval.analysis.scaling import nranks
from hpceval.analysis.significance import BETTER, judge
from hpceval.catalog import BENCHMARKS
from hpceval.catalog.registry import Tunes, fill


# The proxies `hpceval tune` measures: every benchmark that declares how (`tunes=` in its
# catalog module: hpceval.catalog.registry.Tunes), no list here.
TUNABLE: Dict[str, Tunes] = {name: b.tunes for name, b in BENCHMARKS.items() if b.tunes}


def choice_name(bench: str, params: Dict[str, Any]) -> str:
    """'pack/tree(4) 2x1 row': the choice as a user reads it (its declaration's label)."""
    return fill(TUNABLE[bench].label, params)


def tuned_table(records: List[dict], bench: str) -> List[Dict[str, Any]]:
    """One row per (problem, ranks) with at least two choices measured: best, runner-up,
    margin = t(runner-up) / t(best) - 1, significant, candidates, changed (the best differs
    from the previous rank count's of the same problem, both significantly best: on one rank
    the choices are the same algorithm, and noise picks among them)."""
    t = TUNABLE[bench]
    groups: Dict[tuple, List[dict]] = {}
    for r in select(records, bench, t.metric):
        if value(r) and not r["params"].get("traced"):
            key = (tuple(r["params"].get(k) for k in t.problem), nranks(r["params"]))
            groups.setdefault(key, []).append(r)
    rows, last = [], {}
    for (problem, n), recs in sorted(groups.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])):
        if len(recs) < 2:
            continue
        recs = sorted(recs, key=value)
        best, second = recs[0], recs[1]
        name = choice_name(bench, best["params"])
        rows.append({"benchmark": bench, "problem": dict(zip(t.problem, problem)), "ranks": n,
                     "best": {k: best["params"].get(k) for k in t.choices}, "best_name": name,
                     "best_time": value(best), "unit": best.get("unit"),
                     "runner_up_name": choice_name(bench, second["params"]),
                     "runner_up_time": value(second), "margin": value(second) / value(best) - 1,
                     "significant": judge(second, best) == BETTER, "candidates": len(recs),
                     "changed": False})
        prev = last.get(problem)
        rows[-1]["changed"] = bool(prev and prev["best_name"] != name and prev["significant"]
                                   and rows[-1]["significant"])
        last[problem] = rows[-1]
    return rows
