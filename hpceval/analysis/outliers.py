"""Outliers named (issue #51 item 4): nodes and links that deliver less than the others.

A registry of populations (register_population): a benchmark's metric whose records are one
value per node (a node check) or per link (the network map), declared by its views module. Every
population is judged by one robust rule against its own median:

    flagged  <=>  worse than the median by more than  max(Z_LIMIT x 1.4826 x MAD,  REL_FLOOR x median)

MAD is the median absolute deviation from the median; 1.4826 x MAD estimates the standard
deviation of normal data without letting the outliers themselves widen it (a mean and standard
deviation would: one node at half speed among eight moves both). Z_LIMIT = 3.5 is Iglewicz and
Hoaglin's bound for the modified z-score: a normal value passes it one time in 4,300 on one side,
so 1,000 links of a clean machine flag none in four runs of five by spread alone. Only the bad
side counts (a link faster than the others fails nobody). REL_FLOOR = 10%: a deterministic or very
quiet population has a MAD near 0, where any difference would pass the z-limit; below 10% no
acceptance would reject a node, and the spread of netmap's links on one machine here (a few % from
run to run, docs/netmap.md) stays under it.

A fault in one node's adapter or cable slows every link of that node: a node whose measured links
are mostly flagged (more than half, at least NODE_MIN_LINKS) is the outlier, named once as a node
with its links' median, and each of its flagged links names it as `node` (the other end as
`peer`). A flagged link of two unflagged nodes names its source as `node`."""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

from hpceval.analysis.card import CardRow, Cell
from hpceval.analysis.headlines import select, value

Record = Dict[str, Any]
Z_LIMIT = 3.5
MAD_TO_SIGMA = 1.4826
REL_FLOOR = 0.10
NODE_MIN_LINKS = 2
RULE = f"worse than the median by more than max({Z_LIMIT} x 1.4826 MAD, {REL_FLOOR:.0%})"


@dataclass(frozen=True)
class Population:
    benchmark: str
    metric: str
    quantity: str          # as a reader says it: "link bandwidth"
    per: str               # "node": params name the node; "link": src_node and dst_node
    params: Tuple[Tuple[str, Any], ...] = ()   # only the records with these params
    # what the population's launches planned and did not measure: lines for show (a map that
    # lost a node mid-way), None: nothing to say
    unmeasured: Optional[Callable[[Dict[str, Any]], List[str]]] = None


POPULATIONS: List[Population] = []


def register_population(p: Population) -> Population:
    POPULATIONS.append(p)
    return p


def flagged(values: List[float], better: str) -> Tuple[float, float, List[bool]]:
    """The median, the MAD and which values the rule flags (better: 'higher' or 'lower')."""
    med = statistics.median(values)
    mad = statistics.median(abs(v - med) for v in values)
    bound = max(Z_LIMIT * MAD_TO_SIGMA * mad, REL_FLOOR * abs(med))
    worse = [(med - v) if better == "higher" else (v - med) for v in values]
    return med, mad, [w > bound for w in worse]


def display_names(ends: List[Tuple[str, Any]]) -> Dict[Tuple[str, Any], str]:
    """(node name, rank) -> the name a reader sees: the node's, or 'name/rank r' where ranks
    shared a node (a map measured on one machine)."""
    ranks: Dict[str, set] = {}
    for name, rank in ends:
        ranks.setdefault(name, set()).add(rank)
    return {(n, k): n if len(rs) == 1 else f"{n}/rank {k}" for n, rs in ranks.items() for k in rs}


def record_end(r: Record, end: str) -> Tuple[str, Any]:
    """A record's node and rank: params node and rank, or src_node and src (dst_...)."""
    p = r["params"]
    return (p[f"{end}_node"], p.get(end)) if end else (p["node"], p.get("rank"))


def _entry(kind: str, node: str, pop: Population, rec: Record, v: float, med: float,
           **more: Any) -> Dict[str, Any]:
    return {"kind": kind, "node": node, **more, "quantity": pop.quantity,
            "benchmark": pop.benchmark, "metric": pop.metric, "value": v, "median": med,
            "unit": rec.get("unit"), "better": rec.get("better")}


def _nodes(pop: Population, recs: List[Record]) -> List[Dict[str, Any]]:
    names = display_names([record_end(r, "") for r in recs])
    vals = [value(r) for r in recs]
    med, _, bad = flagged(vals, recs[0].get("better", "higher"))
    return [_entry("node", names[record_end(r, "")], pop, r, v, med)
            for r, v, b in zip(recs, vals, bad) if b]


def _links(pop: Population, recs: List[Record]) -> List[Dict[str, Any]]:
    names = display_names([record_end(r, e) for r in recs for e in ("src", "dst")])
    ends = [(names[record_end(r, "src")], names[record_end(r, "dst")]) for r in recs]
    vals = [value(r) for r in recs]
    med, _, bad = flagged(vals, recs[0].get("better", "higher"))
    per_node: Dict[str, List[int]] = {}
    for i, pair in enumerate(ends):
        for n in pair:
            per_node.setdefault(n, []).append(i)
    culprits = {n: idx for n, idx in per_node.items()
                if sum(bad[i] for i in idx) >= NODE_MIN_LINKS
                and 2 * sum(bad[i] for i in idx) > len(idx)}
    out = []
    for n, idx in culprits.items():
        mine = statistics.median(vals[i] for i in idx)
        out.append(_entry("node", n, pop, recs[idx[0]], mine, med,
                          links=f"{sum(bad[i] for i in idx)} of {len(idx)} flagged"))
    for i, (a, b) in enumerate(ends):
        if bad[i]:
            node, peer = (b, a) if b in culprits and a not in culprits else (a, b)
            out.append(_entry("link", node, pop, recs[i], vals[i], med, peer=peer))
    return out


JUDGES = {"node": _nodes, "link": _links}


def outliers(run: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Every flagged node and link of the run's populations, node entries first within each."""
    out: List[Dict[str, Any]] = []
    for pop in POPULATIONS:
        recs = _records(run, pop)
        if len(recs) >= 3:
            out += JUDGES[pop.per](pop, recs)
    return out


def _records(run: Dict[str, Any], pop: Population) -> List[Record]:
    return select(run.get("records") or [], pop.benchmark, pop.metric, **dict(pop.params))


def population_cell(pop: Population) -> Callable[[Dict[str, Any]], Optional[Cell]]:
    """A card row's cell: the median over the population of each member's own statistic, with
    its count and range; no record (no one member's interval stands for the population's);
    None where the run did not measure it."""
    def get(run: Dict[str, Any]) -> Optional[Cell]:
        vals = [value(r) for r in _records(run, pop)]
        if not vals:
            return None
        return Cell(statistics.median(vals), f"median of {len(vals)} {pop.per}s' medians, "
                    f"{_num(min(vals))} .. {_num(max(vals))}")
    return get


CARD_SECTION = "Acceptance: every node, every link"
CARD_ORDER = 25            # after the communication rows
CARD_MISSING = "not measured (hpceval run acceptance)"


def card_row(pop: Population, unit: str) -> CardRow:
    """The machine card's row of a population: its median, count and range."""
    return CardRow(CARD_SECTION, f"{pop.quantity[0].upper()}{pop.quantity[1:]}, median", unit,
                   population_cell(pop), missing=CARD_MISSING, order=CARD_ORDER)


def flagged_cell(run: Dict[str, Any]) -> Optional[Cell]:
    """The nodes named, each with what it was named for; 0 and 'none flagged' on a clean run;
    None where no population was measured."""
    if not judged(run):
        return None
    named: Dict[str, List[str]] = {}
    for o in outliers(run):
        if o["kind"] == "node":
            named.setdefault(o["node"], []).append(o["quantity"])
    for o in outliers(run):
        if o["kind"] == "link" and o["node"] not in named:
            named.setdefault(f"{o['node']} - {o['peer']}", []).append(o["quantity"])
    text = "; ".join(f"{n} ({', '.join(q)})" for n, q in named.items()) or "none flagged"
    return Cell(len(named), text)


def judged(run: Dict[str, Any]) -> List[str]:
    """The populations the run measured, as 'quantity (n values)'."""
    counts = ((p, len(_records(run, p))) for p in POPULATIONS)
    return [f"{p.quantity} ({n} {p.per}s)" for p, n in counts if n >= 3]


def outlier_lines(run: Dict[str, Any]) -> List[str]:
    """Lines for `show` and the report: nothing when no population was measured, else one line
    an outlier or 'none flagged'."""
    seen = judged(run)
    if not seen:
        return []
    found = outliers(run)
    head = f"outliers ({RULE}) among {', '.join(seen)}:"
    gaps = list(dict.fromkeys(line for p in POPULATIONS if p.unmeasured
                              for line in p.unmeasured(run)))
    if not found:
        return [f"{head} none flagged"] + gaps
    return [head] + [_line(o) for o in found] + gaps


def _num(v: float) -> str:
    return f"{v:.0f}" if abs(v) >= 1000 else f"{v:.4g}"


def _line(o: Dict[str, Any]) -> str:
    where = f"link {o['node']} - {o['peer']}" if "peer" in o else f"node {o['node']}"
    more = f" ({o['links']} links)" if "links" in o else ""
    return (f"  OUTLIER {where}: {o['quantity']} {_num(o['value'])} {o['unit']}, "
            f"median {_num(o['median'])} {o['unit']}{more}")
