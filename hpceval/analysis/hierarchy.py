"""The memory hierarchy found in the curves: each cache level's size, latency and bandwidth, and
main memory's (the EV7 paper's Table 2.1), compared with the caches the fingerprint lists; the
core x NUMA-node latency matrix; the degradation of one core's bandwidth under contention.

Reads runs in the export format (docs/export.md) only.

Level detection, on z = log(latency) (or -log(bandwidth)) against log2(working set):
  1. points at the same size are averaged; a running median of 3 removes single outliers;
  2. the curve is cut into constant pieces by optimal partitioning (least squares, a penalty per
     piece of 2 log(n) noise variances, the noise estimated from the differences of
     neighbouring points);
  3. pieces shorter than an octave are the ramps between levels and are dropped; neighbouring pieces whose
     levels differ by less than `min_step` are merged: what is left are the plateaus;
  4. a level's size (its capacity) is where the curve, leaving the plateau, has covered half of
     the step (in log) to the next plateau, interpolated in log size: a sharp edge (an LRU-like
     cache to itself) lands just above the capacity; a soft one (a shared last-level cache whose
     neighbours take part of it, random replacement) lands in the middle of the ramp.
The last plateau is main memory.
"""
from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
from scipy.ndimage import median_filter

from hpceval.analysis.headlines import select, value

Record = Dict[str, Any]

RISE_FRACTION = 0.5      # where on the step between plateaus (in log) a level ends
LATENCY_MIN_STEP = math.log(1.5)   # smaller steps inside a level (replacement, prefetch) are no level
BANDWIDTH_MIN_STEP = math.log(1.25)
MIN_OCTAVES = 1.0        # a level spans at least a doubling; shorter pieces are ramps
PAGE_PREFERENCE = ("thp", "huge-2M", "base")   # fewest TLB misses first: TLB steps are not caches


def _segments(z: np.ndarray, penalty: float) -> List[Tuple[int, int]]:
    """Optimal partition of z into constant pieces [(start, end) ...), least squares + penalty."""
    n = len(z)
    c1 = np.concatenate([[0.0], np.cumsum(z)])
    c2 = np.concatenate([[0.0], np.cumsum(z * z)])

    def cost(i: int, j: int) -> float:     # squared error of z[i:j] around its mean
        s, s2, m = c1[j] - c1[i], c2[j] - c2[i], j - i
        return s2 - s * s / m

    best = np.full(n + 1, np.inf)
    best[0] = -penalty
    last = np.zeros(n + 1, dtype=int)
    for j in range(1, n + 1):
        for i in range(j):
            c = best[i] + cost(i, j) + penalty
            if c < best[j]:
                best[j], last[j] = c, i
    out, j = [], n
    while j > 0:
        out.append((int(last[j]), j))
        j = int(last[j])
    return out[::-1]


def _merge_similar(z: np.ndarray, pieces: List[List[int]], min_step: float) -> List[List[int]]:
    """Merge neighbouring pieces whose levels (medians) differ by less than min_step, the closest
    pair first; a gap left by a dropped ramp between two merged pieces is bridged."""
    pieces = [list(p) for p in pieces]
    while len(pieces) > 1:
        diffs = [abs(float(np.median(z[a[0]:a[1]])) - float(np.median(z[b[0]:b[1]])))
                 for a, b in zip(pieces, pieces[1:])]
        k = int(np.argmin(diffs))
        if diffs[k] >= min_step:
            break
        pieces[k:k + 2] = [[pieces[k][0], pieces[k + 1][1]]]
    return pieces


def detect_levels(sizes: Sequence[float], values: Sequence[float], kind: str = "latency",
                  min_step: Optional[float] = None) -> List[Dict[str, Any]]:
    """Plateaus of a latency (rising) or bandwidth (falling) curve, smallest first:
    [{"size": capacity in bytes (None for the last level), "value": median on the plateau,
      "first": smallest size on it, "last": largest size on it}]."""
    pts: Dict[float, List[float]] = {}
    for s, v in zip(sizes, values):
        if s and v and v > 0 and math.isfinite(v):
            pts.setdefault(float(s), []).append(float(v))
    if len(pts) < 3:
        return []
    xs = np.array(sorted(pts))
    raw = np.array([float(np.mean(pts[x])) for x in xs])
    sign = 1.0 if kind == "latency" else -1.0
    z_raw = sign * np.log(raw)
    z = median_filter(z_raw, size=3, mode="nearest")
    u = np.log2(xs)
    if min_step is None:
        min_step = LATENCY_MIN_STEP if kind == "latency" else BANDWIDTH_MIN_STEP
    d = np.diff(z_raw)
    sigma = max(1.4826 * float(np.median(np.abs(d - np.median(d)))) / math.sqrt(2), 0.01)
    pieces = [list(s) for s in _segments(z, 2.0 * math.log(len(z)) * sigma ** 2)]
    pieces = _merge_similar(z, pieces, min_step)
    # Short pieces are the ramps between levels; the sweep's ends may cut the first and last
    # levels short, so those need 2 points only.
    pieces = [[i, j] for i, j in pieces
              if j - i >= 2 and (u[j - 1] - u[i] >= MIN_OCTAVES or i == 0 or j == len(z))]
    plateaus = _merge_similar(z, pieces, min_step)
    # Deeper levels are slower: a plateau faster than the next one (bandwidth of the smallest
    # sets, held back by the loop's start-up) is no level of its own.
    plateaus = [p for k, p in enumerate(plateaus) if k + 1 == len(plateaus)
                or np.median(z[p[0]:p[1]]) < np.median(z[plateaus[k + 1][0]:plateaus[k + 1][1]])]
    out = []
    for k, (i, j) in enumerate(plateaus):
        level = {"value": float(np.median(raw[i:j])), "first": float(xs[i]), "last": float(xs[j - 1]),
                 "size": None}
        if k + 1 < len(plateaus):
            nxt_i, nxt_j = plateaus[k + 1]
            lo, hi = float(np.median(z[i:j])), float(np.median(z[nxt_i:nxt_j]))
            target = lo + RISE_FRACTION * (hi - lo)
            up = hi > lo
            edge = float(u[j - 1])
            for a in range(j - 1, nxt_i):   # first crossing of the target after the plateau
                za, zb = z[a], z[a + 1]
                if (zb >= target) if up else (zb <= target):
                    f = 0.0 if zb == za else min(max((target - za) / (zb - za), 0.0), 1.0)
                    edge = float(u[a] + f * (u[a + 1] - u[a]))
                    break
            level["size"] = float(2.0 ** edge)
        out.append(level)
    return out


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
        return float(np.median(vals)) if vals else None

    def lat_on(lo: float, hi: float) -> Optional[float]:
        vals = [value(r) for r in lat if lo <= r["params"]["bytes"] <= hi]
        return float(np.median(vals)) if vals else None

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
