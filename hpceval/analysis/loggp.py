"""The LogGP parameters of a run's `loggp` records (docs/loggp.md), for the machine card, the
report and predictions of application time: `loggp_params(run)` and `message_time(params, n)`.

Pure: reads a run in the export format (records with "params", "stats" and their other keys
under "extra", hpceval.analysis.scaling.extra), imports neither the report nor the store."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from hpceval.analysis.headlines import select, value
from hpceval.analysis.scaling import extra

Run = Dict[str, Any]
Record = Dict[str, Any]

BENCHMARK = "loggp"
# The per-size records, and the key each one's medians get in loggp_params' answer.
PER_SIZE = {"round_trip": "rtt_us", "gap": "g_us_by_size", "o_s": "o_s_us_by_size",
            "o_r": "o_r_us_by_size"}
# G is fitted over the sizes of at least the largest / FIT_SPAN (csrc/comm/lib/loggp_fit.h).
FIT_SPAN = 16
_WHERE = {"intra": "intra-node", "inter": "inter-node"}


def fit_sizes(sizes: List[int]) -> List[int]:
    """The sizes G is fitted over, as the binary chooses them: those >= the largest / 16, or,
    when that leaves one size, the largest and the next smaller one ([] for < 2 sizes)."""
    distinct = sorted(set(sizes))
    if len(distinct) < 2:
        return []
    big = distinct[-1]
    fit = [s for s in distinct if s * FIT_SPAN >= big]
    return fit if len(fit) >= 2 else distinct[-2:]


def slope(xs: List[float], ys: List[float]) -> float:
    """Least-squares slope of ys over xs (xs not all equal)."""
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0


def _where(run: Run, rec: Record) -> str:
    from hpceval.analysis.comm import placement_of
    return _WHERE.get(placement_of(run, rec) or "", "unknown")


def summary_record(run: Run, where: Optional[str]) -> Optional[Record]:
    recs = [r for r in select(run.get("records") or [], BENCHMARK, "L")
            if where is None or _where(run, r) == where]
    return recs[-1] if recs else None


def loggp_params(run: Run, where: Optional[str] = None) -> Optional[Dict[str, Any]]:
    """The LogGP parameters a run measured (its `loggp` records), or None when it has none;
    `where` ("intra-node" or "inter-node") keeps the records of that placement only.

    Returns {
      "L_us": latency L (float, >= 0: RTT/2 - o_s - o_r clipped at 0),
      "L_clipped": True when RTT/2 - o_s - o_r was negative (then L_us is 0),
      "L_ci_us": [low, high] 95% CI of L's median (the summary record's), or None,
      "o_s_us", "o_r_us", "g_us": the overheads and the gap at the smallest size (floats),
      "G_us_per_byte": the gap per byte over the large sizes (float),
      "G_ci_us_per_byte": [low, high] or None, "G_fit_bytes": [smallest, largest size fitted],
      "bandwidth_MBps": 1 / G (MB/s = bytes/us), or None when G <= 0,
      "at_bytes": the smallest size (where L, o_s, o_r, g are taken),
      "sizes": [bytes, ...] ascending, and per size (lists aligned with "sizes", us):
      "rtt_us", "g_us_by_size", "o_s_us_by_size", "o_r_us_by_size",
      "where": "intra-node", "inter-node" or "unknown",
      "source": "summary record" (L and G with their CIs, from the binary's paired samples)
                or "per-size medians" (no summary record: computed here, no CIs),
    }
    All times in microseconds, medians of the records."""
    recs = run.get("records") or []
    keep = lambda r: where is None or _where(run, r) == where
    by = {m: {r["params"]["bytes"]: r for r in select(recs, BENCHMARK, m) if keep(r)}
          for m in PER_SIZE}
    sizes = sorted(set.intersection(*(set(v) for v in by.values())))
    if not sizes:
        return None
    out: Dict[str, Any] = {"sizes": sizes}
    for metric, key in PER_SIZE.items():
        out[key] = [value(by[metric][s]) for s in sizes]
    s0 = sizes[0]
    out.update(at_bytes=s0, o_s_us=out["o_s_us_by_size"][0], o_r_us=out["o_r_us_by_size"][0],
               g_us=out["g_us_by_size"][0], where=_where(run, by["round_trip"][s0]))
    summary = summary_record(run, where)
    if summary is not None:
        _from_summary(out, summary)
    else:
        _from_medians(out)
    g = out["G_us_per_byte"]
    out["bandwidth_MBps"] = 1.0 / g if g > 0 else None
    return out


def _from_summary(out: Dict[str, Any], rec: Record) -> None:
    s = rec.get("stats") or {}
    out.update(L_us=value(rec), L_ci_us=[s.get("ci_low"), s.get("ci_high")],
               L_clipped=bool(extra(rec, "L_clipped", False)),
               G_us_per_byte=float(extra(rec, "G_us_per_byte")),
               G_ci_us_per_byte=[extra(rec, "G_ci_low"), extra(rec, "G_ci_high")],
               G_fit_bytes=[extra(rec, "G_fit_min_bytes"), extra(rec, "G_fit_max_bytes")],
               source="summary record")


def _from_medians(out: Dict[str, Any]) -> None:
    raw = out["rtt_us"][0] / 2 - out["o_s_us"] - out["o_r_us"]
    fit = fit_sizes(out["sizes"])
    gap = dict(zip(out["sizes"], out["g_us_by_size"]))
    out.update(L_us=max(raw, 0.0), L_ci_us=None, L_clipped=raw < 0,
               G_us_per_byte=slope(fit, [gap[s] for s in fit]) if fit else 0.0,
               G_ci_us_per_byte=None, G_fit_bytes=[fit[0], fit[-1]] if fit else None,
               source="per-size medians")


def message_time(params: Dict[str, Any], nbytes: float) -> float:
    """The LogGP time of one message of `nbytes` bytes, in us: o_s + L + (nbytes - 1) G + o_r
    (a message of 0 or 1 byte: L + o_s + o_r), from loggp_params' answer."""
    return (params["L_us"] + params["o_s_us"] + params["o_r_us"]
            + max(nbytes - 1, 0) * params["G_us_per_byte"])
