"""Chrome trace-event JSON as hpceval writes it (docs/trace.md): load, validate, split by track.

Only what hpceval's traces use is checked: "X" (complete) slices and "M" (metadata) events,
one track per rank (pid 0, tid = rank) named by a thread_name event, slices on a track
properly nested (Perfetto and chrome://tracing draw overlapping slices wrongly)."""
from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Union

from hpceval.errors import HpcevalError

# Slices may touch or nest to within this many microseconds (ts and dur are rounded to ns).
NEST_TOLERANCE_US = 2e-3


class TraceError(HpcevalError):
    """An invalid trace, or raw trace files that cannot be merged: one line."""

    exit_code = 2

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()))


def load(path: Union[str, Path]) -> dict:
    """Read and validate a trace file."""
    try:
        with open(path, encoding="utf-8") as f:
            trace = json.load(f)
    except OSError as exc:
        raise TraceError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise TraceError(f"{path}: not JSON: {exc}") from None
    try:
        validate(trace)
    except TraceError as exc:
        raise TraceError(f"{path}: {exc}") from None
    return trace


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def validate(trace: dict) -> None:
    """Raise TraceError (one line) unless `trace` is a well-formed hpceval Chrome trace."""
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        raise TraceError("not a trace: expected an object with a 'traceEvents' list")
    named = set()
    slices = []
    for i, ev in enumerate(trace["traceEvents"]):
        if not isinstance(ev, dict) or not isinstance(ev.get("ph"), str):
            raise TraceError(f"event {i}: expected an object with a 'ph' string")
        if ev["ph"] == "M":
            if ev.get("name") == "thread_name":
                if not isinstance((ev.get("args") or {}).get("name"), str):
                    raise TraceError(f"event {i}: thread_name without args.name")
                named.add((ev.get("pid"), ev.get("tid")))
            continue
        if ev["ph"] != "X":
            continue
        if not isinstance(ev.get("name"), str):
            raise TraceError(f"event {i}: slice without a name")
        for key in ("pid", "tid"):
            if not isinstance(ev.get(key), int) or isinstance(ev.get(key), bool):
                raise TraceError(f"event {i} ({ev['name']}): {key} must be an integer")
        for key in ("ts", "dur"):
            v = ev.get(key)
            if not _number(v):
                raise TraceError(f"event {i} ({ev['name']}): {key} must be a number, got {v!r}")
            if v < 0:
                raise TraceError(f"event {i} ({ev['name']}): negative {key} {v}")
        slices.append(ev)
    by_track = defaultdict(list)
    for ev in slices:
        by_track[(ev["pid"], ev["tid"])].append(ev)
    for (pid, tid), evs in sorted(by_track.items()):
        if (pid, tid) not in named:
            raise TraceError(f"track pid {pid} tid {tid} has slices but no thread_name")
        _check_nesting(pid, tid, evs)


def check_ranks(trace: dict) -> None:
    """What the OTF2 export and the report take from otherData: the rank count, a host per
    rank when hosts are named, and every track a rank below that count (TraceError otherwise)."""
    od = trace.get("otherData")
    if not isinstance(od, dict):
        raise TraceError("no otherData object")
    n, hosts = od.get("nranks"), od.get("hosts")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise TraceError(f"otherData.nranks {str(n)[:20]!r} is not a positive integer")
    if hosts is not None and (not isinstance(hosts, list) or len(hosts) != n
                              or not all(isinstance(h, str) for h in hosts)):
        raise TraceError(f"otherData.hosts is not {n} host names")
    for ev in trace["traceEvents"]:
        if ev["ph"] in ("X", "M") and not (isinstance(ev.get("tid"), int) and 0 <= ev["tid"] < n):
            raise TraceError(f"an event of track {str(ev.get('tid'))[:20]} outside ranks 0..{n - 1}")


def _check_nesting(pid: int, tid: int, evs: List[dict]) -> None:
    evs = sorted(evs, key=lambda e: (e["ts"], -e["dur"]))
    stack: List[dict] = []
    for ev in evs:
        while stack and stack[-1]["ts"] + stack[-1]["dur"] <= ev["ts"] + NEST_TOLERANCE_US:
            stack.pop()
        if stack:
            top = stack[-1]
            top_end = top["ts"] + top["dur"]
            if ev["ts"] + ev["dur"] > top_end + NEST_TOLERANCE_US:
                raise TraceError(
                    f"track tid {tid}: slice '{ev['name']}' at {ev['ts']:g} us (ends "
                    f"{ev['ts'] + ev['dur']:g}) overlaps '{top['name']}' (ends {top_end:g}) "
                    "without nesting inside it")
        stack.append(ev)


def tracks(trace: dict) -> Dict[int, List[dict]]:
    """{rank (tid): its slices sorted by start, enclosing slices first}; every named track,
    even one without slices."""
    out: Dict[int, List[dict]] = defaultdict(list)
    for ev in trace["traceEvents"]:
        if ev.get("ph") == "M" and ev.get("name") == "thread_name":
            out[ev["tid"]]
        elif ev.get("ph") == "X":
            out[ev["tid"]].append(ev)
    return {tid: sorted(evs, key=lambda e: (e["ts"], -e["dur"])) for tid, evs in sorted(out.items())}
