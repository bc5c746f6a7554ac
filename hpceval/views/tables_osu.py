"""Compact OSU-style tables: one line per message size with latency and bandwidth side by side
(and, for collectives, the time with the barrier included), each point's quality at the end.
They replace reading the long flat result listing (folded away in the report)."""
from __future__ import annotations

from typing import Dict, List, Optional

from hpceval.analysis.significance import short_verdict
from hpceval.quality import at_floor

from .data import fmt_num, human_bytes, records, value
from .registry import Table, TableSpec, register_table

SECTION = "Interconnect"


def _by_size(recs: List[dict]) -> Dict[int, dict]:
    return {r["params"]["bytes"]: r for r in recs if isinstance(r["params"].get("bytes"), int)}


def _shown(rec: Optional[dict]) -> str:
    """The value, or a dash for a point at the subtraction floor (not a measurement)."""
    if rec is None:
        return "—"
    return "at floor" if at_floor(rec) else fmt_num(value(rec))


def _quality(*recs: Optional[dict]) -> str:
    words = [short_verdict(r) for r in recs if r is not None]
    return next((w for w in words if w != "ok"), "ok")


def pingpong_table(run: dict) -> Optional[Table]:
    lat = _by_size(records(run, "pingpong", "latency"))
    bw = _by_size(records(run, "pingpong", "bandwidth"))
    if not lat:
        return None
    rows = [[human_bytes(b), _shown(lat[b]), _shown(bw.get(b)), fmt_num(lat[b]["stats"].get("n")),
             _quality(lat[b], bw.get(b))] for b in sorted(lat)]
    return Table(["size", "latency [µs]", "bandwidth [MB/s]", "n", "quality"], rows,
                 "Median one-way latency and the bandwidth it gives, per size (ranks 0-1).")


def collectives_table(run: dict) -> Optional[Table]:
    lat = records(run, "collectives", "latency")
    if not lat:
        return None
    raw = {(r["params"]["op"], r["params"]["nranks"], r["params"]["bytes"]): r
           for r in records(run, "collectives", "latency_raw")}
    bw = {(r["params"]["op"], r["params"]["nranks"], r["params"]["bytes"]): r
          for r in records(run, "collectives", "bandwidth")}
    rows = []
    for r in sorted(lat, key=lambda r: (r["params"]["op"], r["params"]["nranks"], r["params"]["bytes"])):
        k = (r["params"]["op"], r["params"]["nranks"], r["params"]["bytes"])
        rows.append([k[0], str(k[1]), human_bytes(k[2]), _shown(r),
                     _shown(raw.get(k)), _shown(bw.get(k)), _quality(r, bw.get(k))])
    return Table(["operation", "ranks", "size", "latency [µs]", "with barrier [µs]",
                  "bandwidth [MB/s]", "quality"], rows,
                 "Slowest rank, the barrier's own cost subtracted; 'at floor': the subtraction "
                 "left nothing measurable (clamped at 1 ns), so read the time with the barrier.")


register_table(TableSpec(SECTION, "Ping-pong by size (OSU style)", pingpong_table, order=10))
register_table(TableSpec(SECTION, "Collectives by size (OSU style)", collectives_table, order=10))
