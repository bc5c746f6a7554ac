"""The dense solve's analysis (hpceval/catalog/bench_dense.py): its best rate per kind and rank
count over the orders, block sizes and process grids measured (the grid `hpceval tune` would
pick), for the machine-card and headline rows (hpceval/views/rows_dense.py, with the card's peaks
section: the dense rate is the figure a peak is first set against). A pure function of
records (export format)."""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from hpceval.analysis.card import Cell
from hpceval.analysis.headlines import select, value

Record = dict
ORDER = 35                  # after the compute kernels (30), before the application proxies (40)
WHAT = {"complex": "complex (pzgesv, AORSA3D)", "real": "real (pdgesv, HPL)"}


def where(rec: Record) -> str:
    p = rec["params"]
    residual = (rec.get("extra") or {}).get("residual")
    return (f"n {p['n']}, NB {p['nb']}, {p['P']}x{p['Q']} grid, {p['ranks']} rank(s)"
            + (f", residual {residual:.2g}" if isinstance(residual, (int, float)) else ""))


def best(records: List[Record], kind: Optional[str] = None,
         ranks: Optional[int] = None) -> Optional[Record]:
    """The fastest verified solve (GFlop/s) of a kind (and rank count), over n, NB and grid."""
    recs = [r for r in select(records, "dense", "gflops") if value(r)
            and (kind is None or r["params"].get("kind") == kind)
            and (ranks is None or r["params"].get("ranks") == ranks)]
    return max(recs, key=value) if recs else None


def best_per_ranks(records: List[Record]) -> Dict[Tuple[str, int], Record]:
    """{(kind, ranks): the best GFlop/s record} over every n, NB and grid measured."""
    out: Dict[Tuple[str, int], Record] = {}
    for r in select(records, "dense", "gflops"):
        key = (r["params"].get("kind"), r["params"].get("ranks"))
        if value(r) and (key not in out or value(r) > value(out[key])):
            out[key] = r
    return dict(sorted(out.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])))


def best_cell(run: dict, most_ranks: Optional[int] = None) -> Optional[Cell]:
    """The best solve of any kind (on at most most_ranks ranks), as a card cell."""
    recs = [r for r in select(run.get("records") or [], "dense", "gflops") if value(r)
            and (most_ranks is None or (r["params"].get("ranks") or 0) <= most_ranks)]
    rec = max(recs, key=value) if recs else None
    return Cell(value(rec), f"dense {rec['params']['kind']}, {where(rec)}", rec) if rec else None


def one_node_cell(run: dict) -> Optional[Cell]:
    """The best solve on at most one node's cores (the machine balance's flops)."""
    return best_cell(run, (run.get("fingerprint") or {}).get("cores") or 1)
