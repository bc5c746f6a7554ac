"""Piecewise Hockney models of message time: t(n) = t0 + n / r_inf in each region of message
sizes, with the breakpoints (an MPI library's eager -> rendezvous switches, the SP2 paper's
16 KiB saw-tooth) found from the data.

Method: the points (n, t) sorted by n are split into contiguous regions by dynamic programming,
each region fitted by least squares on the relative error (a 0.2 us and a 200 us time weigh the
same), for 1..max_regions regions, each region with its own noise level (Gaussian likelihood,
noise floored at 1%); the number of regions is the one with the lowest BIC (1.5x the usual
penalty per parameter, as measured curves are not exactly linear), so a breakpoint is kept only
when it explains the data better than noise would. Each region reports
t0 (the intercept, us), r_inf (1 / slope, MB/s = bytes/us), n_1/2 = t0 * r_inf (the size at which
half of r_inf is reached) and the rms relative residual of its fit.

Reads export-format run dicts only (docs/export.md).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from hpceval.quality import field as record_field


@dataclass
class Region:
    n_lo: int                 # smallest message size in the region (bytes)
    n_hi: int                 # largest
    t0: float                 # us
    r_inf: Optional[float]    # MB/s (bytes/us); None when the time does not grow with n
    n_half: Optional[float]   # bytes; None with r_inf
    rms_rel: float            # rms of (t - fit) / t over the region's points, outliers left out
    points: int
    outliers: int = 0         # points off the line by more than OUTLIER (left out of the fit)


@dataclass
class Model:
    regions: List[Region]
    breakpoints: List[Tuple[int, int]] = field(default_factory=list)  # (last n before, first after)
    rms_rel: float = 0.0      # over all points but the outliers

    def predict(self, n) -> np.ndarray:
        n = np.asarray(n, dtype=float)
        out = np.empty_like(n)
        for i, r in enumerate(self.regions):
            lo = -np.inf if i == 0 else self.regions[i - 1].n_hi
            mask = (n > lo) & (n <= (np.inf if i == len(self.regions) - 1 else r.n_hi))
            slope = 0.0 if r.r_inf is None else 1.0 / r.r_inf
            out[mask] = r.t0 + slope * n[mask]
        return out


OUTLIER = 0.5   # a point this far (relative) from its region's line is an outlier
PENALTY = 1.5      # x BIC's log(m) per parameter: a breakpoint must explain clearly more than noise
NOISE_FLOOR = 0.01  # relative noise assumed at least (1%) when judging a region's fit


def _fit(n: np.ndarray, t: np.ndarray) -> Tuple[float, float, float, int]:
    """t = a + b n with a, b >= 0, least squares on relative errors; points off by more than
    OUTLIER (a disturbed sample on a shared machine) are dropped and the line refitted once.
    Returns (a, b, sum of squared relative residuals of the kept points, outliers)."""
    from scipy.optimize import nnls     # here: importing it cost every command 0.5 s of CPU
    w = 1.0 / t
    A = np.column_stack([w, n * w])
    rhs = np.ones_like(t)
    (a, b), _ = nnls(A, rhs)
    res = (t - a - b * n) / t
    keep = np.abs(res) <= OUTLIER
    if len(t) >= 4 and 2 <= keep.sum() < len(t):
        (a, b), _ = nnls(A[keep], rhs[keep])
        res = (t - a - b * n) / t
        keep = np.abs(res) <= OUTLIER
    r = res[keep]
    return float(a), float(b), float(r @ r), int(len(t) - keep.sum())


def _cost(n: np.ndarray, t: np.ndarray) -> float:
    """-2 log-likelihood of one region with its own noise level: the kept points' relative
    residuals as Gaussian (noise floored at NOISE_FLOOR, so a short region fitted almost exactly
    by chance does not look infinitely likely); an outlier costs what a residual of OUTLIER
    would, whatever the split, so spikes neither drag a line nor earn a region of their own."""
    k = len(t)
    _, _, sse, out = _fit(n, t)
    var = max(sse / max(k - out, 1), NOISE_FLOOR ** 2)
    return (k - out) * math.log(var) + out * math.log(OUTLIER ** 2)


MAX_CUTS = 48   # candidate breakpoints at most: the dynamic programme costs cuts^2 fits


def _cuts(m: int) -> np.ndarray:
    """Point indices where a region may start or end: every one for a usual sweep (up to
    MAX_CUTS points), else MAX_CUTS evenly spaced ones, so that a series of thousands of points
    costs about as much as one of 48 (each region is still fitted to all of its points)."""
    if m <= MAX_CUTS:
        return np.arange(m + 1)
    return np.unique(np.linspace(0, m, MAX_CUTS + 1).round().astype(int))


def fit_piecewise(sizes: Sequence[float], times: Sequence[float], max_regions: int = 4,
                  min_points: int = 3) -> Model:
    """Fit t(n) = t0 + n / r_inf piecewise; sizes in bytes, times in us (> 0). A series is
    fitted once: the figure and the models table of a report ask for the same fit."""
    key = tuple(sorted((float(n), float(t)) for n, t in zip(sizes, times)
                       if t > 0 and math.isfinite(t)))
    return _fit_piecewise(key, max_regions, min_points)


@lru_cache(maxsize=128)
def _fit_piecewise(pts: Tuple[Tuple[float, float], ...], max_regions: int, min_points: int) -> Model:
    if len(pts) < 2:
        raise ValueError("need at least 2 points with positive times")
    n = np.array([p[0] for p in pts])
    t = np.array([p[1] for p in pts])
    m = len(n)
    min_points = max(2, min(min_points, m))
    cuts = _cuts(m)
    c = len(cuts)
    # cost[a][b]: one region over points cuts[a]..cuts[b]-1, with its own noise level (a
    # library's protocols differ in noise too: a quiet eager region must not hide behind a
    # noisy rendezvous one).
    cost = np.full((c, c), np.inf)
    for a in range(c):
        for b in range(a + 1, c):
            if cuts[b] - cuts[a] >= min_points:
                cost[a, b] = _cost(n[cuts[a]:cuts[b]], t[cuts[a]:cuts[b]])
    kmax = max(1, min(max_regions, m // min_points))
    best = np.full((kmax + 1, c), np.inf)   # best[k][b]: k regions over points 0..cuts[b]-1
    back = np.zeros((kmax + 1, c), dtype=int)
    best[0, 0] = 0.0
    for k in range(1, kmax + 1):
        for b in range(1, c):
            cand = best[k - 1, :b] + cost[:b, b]
            a = int(np.argmin(cand))
            best[k, b], back[k, b] = cand[a], a
    # BIC: per region t0, r_inf and its noise, plus one parameter per breakpoint.
    bic = [best[k, c - 1] + PENALTY * (4 * k - 1) * math.log(m) for k in range(1, kmax + 1)]
    k = 1 + int(np.argmin(bic))
    bounds, b = [], c - 1
    for kk in range(k, 0, -1):
        a = back[kk, b]
        bounds.append((int(cuts[a]), int(cuts[b])))
        b = a
    bounds.reverse()
    regions = []
    for i, j in bounds:
        a, b, sse, out = _fit(n[i:j], t[i:j])
        r_inf = 1.0 / b if b > 0 else None
        regions.append(Region(int(n[i]), int(n[j - 1]), a, r_inf,
                              a * r_inf if r_inf is not None else None,
                              math.sqrt(sse / max(j - i - out, 1)), int(j - i), out))
    model = Model(regions, [(regions[i].n_hi, regions[i + 1].n_lo) for i in range(k - 1)])
    res = (t - model.predict(n)) / t
    res = res[np.abs(res) <= OUTLIER]
    model.rms_rel = float(np.sqrt(np.mean(res ** 2))) if len(res) else float("nan")
    return model


# ---------------------------------------------------------------- from runs

def _median(rec: dict) -> Optional[float]:
    v = (rec.get("stats") or {}).get("median")
    return float(v) if isinstance(v, (int, float)) and v > 0 else None


def message_times(run: dict) -> Dict[str, List[Tuple[int, float]]]:
    """Per series, (bytes, one-message time in us) from a run: the pingpong benchmark and p2p's
    0-1 pattern (pingpong and swap latencies; stream modes as n / bandwidth, the time per
    message in a window). Series names read like 'p2p pingpong send'."""
    out: Dict[str, List[Tuple[int, float]]] = {}
    for rec in run.get("records") or []:
        p = rec.get("params") or {}
        b, v = p.get("bytes"), _median(rec)
        if not isinstance(b, int) or v is None:
            continue
        if rec.get("benchmark") == "pingpong" and rec.get("metric") == "latency":
            key = "pingpong"
        elif rec.get("benchmark") == "p2p" and p.get("pattern", "0-1") == "0-1":
            mode = p.get("mode")
            if mode in ("pingpong", "swap") and rec.get("metric") == "latency":
                v = v
            elif mode == "stream" and rec.get("metric") == "bandwidth" and b > 0:
                v = b / v   # bytes / (bytes/us) = us per message
            else:
                continue
            key = f"p2p {mode} {p.get('protocol')}"
        else:
            continue
        out.setdefault(key, []).append((b, v))
    return {k: sorted(v) for k, v in out.items()}


def run_models(run: dict, min_sizes: int = 6, **kw) -> Dict[str, Model]:
    """The piecewise model of every series of a run with at least `min_sizes` sizes > 0."""
    models = {}
    for key, pts in message_times(run).items():
        pts = [(b, t) for b, t in pts if b > 0]
        if len(pts) >= min_sizes:
            models[key] = fit_piecewise([b for b, _ in pts], [t for _, t in pts], **kw)
    return models


# A bracket from the binaries' adaptive refinement (lib/refine.h): sizes this close together
# only come from bisecting a suspected switch.
BRACKET_BYTES = 16
BRACKET_REL = 1 / 256
STEP = 0.02          # a step in time of at least this much (relative) across the bracket


@dataclass
class Switch:
    series: str
    n_before: int      # the last size measured on the low side (bytes)
    n_after: int       # the first on the high side
    t_before: float    # us
    t_after: float


def refined_sizes(run: dict, benchmark: str) -> set:
    """The sizes a benchmark's refinement added ("refined" records)."""
    return {(r.get("params") or {}).get("bytes") for r in run.get("records") or []
            if r.get("benchmark") == benchmark and record_field(r, "refined")}


def brackets(series: str, pts: Sequence[Tuple[int, float]], refined: set) -> List[Switch]:
    """Consecutive sizes of one series (sorted), one of them added by the refinement, at most
    BRACKET_BYTES (or BRACKET_REL of the size) apart, whose times differ by at least STEP."""
    out = []
    for (a, ta), (b, tb) in zip(pts, pts[1:]):
        close = b - a <= max(BRACKET_BYTES, BRACKET_REL * a)
        if close and (a in refined or b in refined) and abs(tb - ta) >= STEP * min(ta, tb):
            out.append(Switch(series, a, b, ta, tb))
    return out


def switches(run: dict) -> List[Switch]:
    """Protocol switches the refinement bracketed in the message-time series (brackets). The
    piecewise fit may spend its few regions elsewhere; a bracket is a measurement, not a fit."""
    out = []
    for key, pts in message_times(run).items():
        out += brackets(key, pts, refined_sizes(run, "pingpong" if key == "pingpong" else "p2p"))
    return out
