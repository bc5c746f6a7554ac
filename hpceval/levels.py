"""Cache levels in a latency (or bandwidth) curve against working-set size. A pure function of
the curve, used by the analysis (hpceval/analysis/hierarchy.py) and by the planner's cache
probe (hpceval/runner/llcprobe.py).

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

RISE_FRACTION = 0.5      # where on the step between plateaus (in log) a level ends
LATENCY_MIN_STEP = math.log(1.5)   # smaller steps inside a level (replacement, prefetch) are no level
BANDWIDTH_MIN_STEP = math.log(1.25)
MIN_OCTAVES = 1.0        # a level spans at least a doubling; shorter pieces are ramps


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
    from scipy.ndimage import median_filter   # here: scipy costs every command 0.2 s to import
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
