"""The memory hierarchy found in the curves: each cache level's size, latency and bandwidth, and
main memory's (the EV7 paper's Table 2.1), compared with the caches the fingerprint lists; the
core x NUMA-node latency matrix; the degradation of one core's bandwidth under contention.

Reads runs in the export format (docs/export.md) only.

Level detection: hpceval/levels.py.
"""
from __future__ import annotations

from statistics import median
from typing import Any, Dict, List, Optional, Tuple

from hpceval.analysis.headlines import select, value

Record = Dict[str, Any]

PAGE_PREFERENCE = ("thp", "huge-2M", "base")   # fewest TLB misses first: TLB steps are not caches


# ---------------------------------------------------------------- from runs

def _curve(records: List[Record], benchmark: str, metric: str, **only: Any) -> Tuple[List[Record], str]:
    """The records of one curve: the preferred page kind, unpinned-or-default placement."""
    recs = [r for r in select(records, benchmark, metric, **only)
            if (r.get("params") or {}).get("node", -1) in (-1, None)]
    for pages in PAGE_PREFERENCE:
        chosen = [r for r in recs if _pages_used(r) == pages]
        if chosen:
            return chosen, pages
    if recs:
        return recs, "unknown"
    return [], ""


def _pages_used(r: Record) -> Optional[str]:
    """The page kind a record was really measured with (a request may have fallen back)."""
    return r.get("pages_used") or (r.get("params") or {}).get("pages")


def expected_caches(fingerprint: Optional[dict]) -> List[Tuple[str, int]]:
    """[('L1d', 32768), ('L2', 524288), ('L3', 33554432)]: data and unified caches by level."""
    out: Dict[int, Tuple[str, int]] = {}
    for c in (fingerprint or {}).get("caches") or []:
        kind, size, level = str(c.get("type") or "").lower(), c.get("size_bytes"), c.get("level")
        if not size or not isinstance(level, int) or kind.startswith("instr"):
            continue
        out[level] = (f"L{level}" + ("d" if kind == "data" else ""), int(size))
    return [out[k] for k in sorted(out)]


def hierarchy(run: dict) -> Optional[Dict[str, Any]]:
    """{"levels": [{"level", "size", "latency_ns", "bandwidth_gbs", "expected", "ratio", "flag"}],
        "pages", "source", "agrees", "notes"} or None when the run has no latency or bandwidth curve.
    Sizes come from the latency curve (random order) when there is one, else from the read
    bandwidth curve."""
    from hpceval.levels import detect_levels    # numpy: loaded when a run's curves are read
    recs = run.get("records") or []
    lat, pages = _curve(recs, "mem-latency", "latency", order="random")
    bw, bw_pages = _curve(recs, "mem-bandwidth", "bandwidth", mode="read", threads=1)
    notes: List[str] = []
    if len(lat) >= 3:
        found = detect_levels([r["params"]["bytes"] for r in lat], [value(r) for r in lat], "latency")
        source = f"mem-latency (random order, {pages} pages)"
    elif len(bw) >= 3:
        found = detect_levels([r["params"]["bytes"] for r in bw], [value(r) for r in bw], "bandwidth")
        source = f"mem-bandwidth read ({bw_pages} pages)"
        pages = bw_pages
    else:
        return None
    if not found:
        return None

    def bw_on(lo: float, hi: float) -> Optional[float]:
        vals = [value(r) for r in bw if lo <= r["params"]["bytes"] <= hi]
        return float(median(vals)) if vals else None

    def lat_on(lo: float, hi: float) -> Optional[float]:
        vals = [value(r) for r in lat if lo <= r["params"]["bytes"] <= hi]
        return float(median(vals)) if vals else None

    expected = expected_caches(run.get("fingerprint"))
    levels: List[Dict[str, Any]] = []
    prev_edge = 0.0
    for k, lv in enumerate(found):
        last = lv["size"] is None
        # The level's own range: past the previous edge's ramp, before this edge.
        lo = max(prev_edge * 1.5, lv["first"]) if prev_edge else 0.0
        hi = lv["size"] / 1.2 if lv["size"] else float("inf")
        if last:
            lo = max(lo, lv["first"])
        row = {"level": "memory" if last else f"L{k + 1}", "size": lv["size"],
               "latency_ns": lat_on(lo, hi) if lat else None,
               "bandwidth_gbs": bw_on(lo, hi) if bw else None,
               "expected": None, "ratio": None, "flag": ""}
        if lat and row["latency_ns"] is None:
            row["latency_ns"] = lv["value"] if source.startswith("mem-latency") else None
        levels.append(row)
        prev_edge = lv["size"] or prev_edge
    caches = [r for r in levels if r["level"] != "memory"]
    for row, (name, size) in zip(caches, expected):
        row["level"], row["expected"] = name, size
        row["ratio"] = row["size"] / size
        if not 0.5 <= row["ratio"] <= 2.0:
            row["flag"] = f"{row['ratio']:.2g}x the fingerprint's {name}"
    for row in caches[len(expected):]:
        row["flag"] = "a step the fingerprint has no cache for (TLB reach or a shared cache's share?)"
    agrees = len(caches) == len(expected) and not any(r["flag"] for r in caches)
    if len(caches) < len(expected):
        missing = ", ".join(name for name, _ in expected[len(caches):])
        notes.append(f"not found in the curve: {missing}")
    return {"levels": levels, "pages": pages, "source": source, "agrees": agrees, "notes": notes}


def latency_matrix(run: dict) -> Optional[Dict[str, Any]]:
    """{"cpus": [...], "nodes": [...], "ns": {(cpu, node): latency}, "bytes"}: the EV7 core x
    memory-home matrix from mem-latency records with both cpu and node set (largest size each)."""
    cells: Dict[Tuple[int, int], Record] = {}
    for r in select(run.get("records") or [], "mem-latency", "latency"):
        p = r["params"]
        cpu, node = p.get("cpu", -1), p.get("node", -1)
        if isinstance(cpu, int) and isinstance(node, int) and cpu >= 0 and node >= 0:
            key = (cpu, node)
            if key not in cells or p["bytes"] > cells[key]["params"]["bytes"]:
                cells[key] = r
    if not cells:
        return None
    return {"cpus": sorted({c for c, _ in cells}), "nodes": sorted({n for _, n in cells}),
            "ns": {k: value(r) for k, r in cells.items()},
            "bytes": max(r["params"]["bytes"] for r in cells.values())}


def contention(run: dict) -> Optional[Dict[str, Any]]:
    """Degradation under contention, from mem-contention records:
    {"ratio": per-core bandwidth with every core busy / alone (the p690 experiment),
     "cores": n, "alone_gbs", "all_gbs", "loaded": [{"others": k, "bandwidth_gbs", "latency_ns",
     "bandwidth_ratio", "latency_ratio"}] (ratios against k = 0)}, or None."""
    recs = run.get("records") or []
    per_core = {r["params"].get("cores"): value(r)
                for r in select(recs, "mem-contention", "bandwidth", experiment="per-core")}
    bw = {r["params"].get("others"): value(r)
          for r in select(recs, "mem-contention", "bandwidth", experiment="loaded")}
    lat = {r["params"].get("others"): value(r)
           for r in select(recs, "mem-contention", "latency", experiment="loaded")}
    if not per_core and not bw:
        return None
    out: Dict[str, Any] = {"ratio": None, "cores": None, "alone_gbs": None, "all_gbs": None,
                           "loaded": []}
    if 1 in per_core and len(per_core) > 1:
        n = max(k for k in per_core if isinstance(k, int))
        out.update(cores=n, alone_gbs=per_core[1], all_gbs=per_core[n],
                   ratio=per_core[n] / per_core[1] if per_core[1] else None)
    for k in sorted(k for k in set(bw) | set(lat) if isinstance(k, int)):
        row = {"others": k, "bandwidth_gbs": bw.get(k), "latency_ns": lat.get(k),
               "bandwidth_ratio": None, "latency_ratio": None}
        if bw.get(k) and bw.get(0):
            row["bandwidth_ratio"] = bw[k] / bw[0]
        if lat.get(k) and lat.get(0):
            row["latency_ratio"] = lat[k] / lat[0]
        out["loaded"].append(row)
    return out


def cache_marks(run: dict) -> List[Tuple[str, int, bool]]:
    """[(name, bytes, detected)]: the cache sizes to mark on a rate-vs-working-set figure. The
    levels hpceval detected from this run's own latency curve (or its planner's LLC probe) are
    marked as detected; the fingerprint's reported sizes as reported, so a disagreement shows."""
    marks: List[Tuple[str, int, bool]] = []
    found = hierarchy(run)
    if found:
        marks += [(f"{lv['level']} (detected)", int(lv["size"]), True)
                  for lv in found["levels"] if lv["size"]]
    else:
        llc = (run.get("settings") or {}).get("llc") or {}
        if llc.get("detected"):
            marks.append(("LLC (probe)", int(llc["detected"]), True))
    marks += [(f"{name} (reported)", size, False) for name, size in
              expected_caches(run.get("fingerprint"))]
    return marks
