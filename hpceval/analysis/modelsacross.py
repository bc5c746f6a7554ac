"""Message-time models across machines as one table, as SP2 Table 3 lists h, r_inf and n_1/2 per
machine: per run, series and region of message sizes the piecewise Hockney fit's latency h (t0),
asymptotic rate r_inf and half-rate size n_1/2 (hpceval.analysis.commmodel), and per run and
placement the LogGP parameters (hpceval.analysis.loggp)."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from hpceval.analysis.commmodel import Model, run_models
from hpceval.analysis.loggp import loggp_params

Run = Dict[str, Any]

# The series the card quotes n_1/2 of, in order of preference (pingpong is what every suite runs).
CARD_SERIES = ("pingpong", "p2p pingpong send")


def hockney_rows(runs: List[Run]) -> List[Dict[str, Any]]:
    """[{series, region: 'lo-hi', n_lo, n_hi, cells: [None or {h_us, r_inf_MBps, n_half_bytes,
    rms_rel, points} per run]}]: one row per series and region index (regions of the same index
    on two machines may cover different sizes: each cell states its own n_lo..n_hi)."""
    models = [run_models(r) for r in runs]
    series = sorted({s for m in models for s in m})
    rows = []
    for s in series:
        most = max(len(m[s].regions) for m in models if s in m)
        for i in range(most):
            cells = []
            for m in models:
                reg = m[s].regions[i] if s in m and i < len(m[s].regions) else None
                cells.append(None if reg is None else {
                    "h_us": reg.t0, "r_inf_MBps": reg.r_inf, "n_half_bytes": reg.n_half,
                    "n_lo": reg.n_lo, "n_hi": reg.n_hi, "rms_rel": reg.rms_rel,
                    "points": reg.points})
            rows.append({"series": s, "region": i + 1, "cells": cells})
    return rows


LOGGP_KEYS = (("L", "L_us", "us"), ("o_s", "o_s_us", "us"), ("o_r", "o_r_us", "us"),
              ("g", "g_us", "us"), ("G", "G_us_per_byte", "us/B"),
              ("1/G", "bandwidth_MBps", "MB/s"))


def loggp_rows(runs: List[Run]) -> List[Dict[str, Any]]:
    """[{where, parameter, unit, values: [float or None per run]}] for the placements any run
    measured LogGP at."""
    rows = []
    for where in ("intra-node", "inter-node"):
        found = [loggp_params(r, where) for r in runs]
        if not any(found):
            continue
        for name, key, unit in LOGGP_KEYS:
            rows.append({"where": where, "parameter": name, "unit": unit,
                         "values": [None if f is None else f.get(key) for f in found]})
    return rows


def models_across(runs: List[Run]) -> Dict[str, Any]:
    return {"hockney": hockney_rows(runs), "loggp": loggp_rows(runs)}


def card_n_half(run: Run) -> Optional[Dict[str, Any]]:
    """The half-rate size of the largest messages' region of the first series of CARD_SERIES a
    run has: {n_half, series, n_lo, n_hi, model}, or None (no such series, or its last region
    has no rate)."""
    models = run_models(run)
    for s in CARD_SERIES:
        m: Optional[Model] = models.get(s)
        if m is None:
            continue
        last = m.regions[-1]
        if last.n_half is None:
            return None
        return {"n_half": last.n_half, "series": s, "n_lo": last.n_lo, "n_hi": last.n_hi,
                "model": m}
    return None
