"""netmap's analysis (csrc/comm/netmap.c): the pairs a map planned and did not measure. Rank 0
writes each phase's records as it ends, so a launch that lost a node mid-map keeps the rounds
before; the pairs it planned beyond them are named here as not measured (failed)."""
from __future__ import annotations

from typing import Any, Dict, List, Set, Tuple

from hpceval.analysis.outliers import display_names, record_end

Run = Dict[str, Any]


def planned_pairs(launch: Dict[str, Any]) -> Set[Tuple[int, int]]:
    """The pairs of ranks a netmap launch was to measure: round k (its --shifts, or 1 .. P/2)
    holds {i, i+k mod P}."""
    p = int(launch.get("nranks") or 0)
    argv = list((launch.get("meta") or {}).get("argv") or [])
    text = argv[argv.index("--shifts") + 1] if "--shifts" in argv[:-1] else "0"
    ks = list(range(1, p // 2 + 1)) if text == "0" else [int(k) for k in text.split(",")]
    return {tuple(sorted((i, (i + k) % p))) for k in ks for i in range(p)}


def unmeasured_lines(run: Run) -> List[str]:
    """One line per netmap launch that did not end well: how many of its planned pairs were
    measured, and the first pairs that were not (marked failed)."""
    recs = [r for r in run.get("records") or [] if r.get("benchmark") == "netmap"]
    done = {tuple(sorted((r["params"]["src"], r["params"]["dst"]))) for r in recs}
    shown_as = display_names([record_end(r, e) for r in recs for e in ("src", "dst")])
    name = {rank: shown_as[(node, rank)] for node, rank in shown_as}
    out = []
    for launch in run.get("launches") or []:
        if launch.get("benchmark") != "netmap" or launch.get("status") == "ok":
            continue
        planned = planned_pairs(launch)
        missing = sorted(planned - done)
        shown = ", ".join(f"{name.get(a, a)} - {name.get(b, b)}" for a, b in missing[:4])
        out.append(f"  MAP INCOMPLETE: {launch.get('label')} {launch.get('status')} "
                   f"({launch.get('message') or 'no message'}): {len(planned) - len(missing)} of "
                   f"{len(planned)} pairs measured and judged; {len(missing)} failed"
                   + (f" ({shown}{', ...' if len(missing) > 4 else ''})" if missing else ""))
    return out
