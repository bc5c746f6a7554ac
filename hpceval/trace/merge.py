"""Merge the trace library's per-rank raw files into one Chrome trace (docs/trace.md).

A raw file (csrc/trace/trace.c writes it at MPI_Finalize) is one JSON header line, then the
events as packed records whose layout the header gives ("event_layout", numpy dtype strings).
Times are each rank's CLOCK_MONOTONIC in ns; the header's offsets to rank 0's clock, measured
at MPI_Init and at MPI_Finalize, are interpolated linearly over the run (drift between nodes).

A run where some rank wrote no file (it died, or never reached MPI_Finalize) is not merged:
TraceError names the missing ranks (the raw files can be kept with `hpceval trace --keep-raw`).
"""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Tuple, Union

import numpy as np

from hpceval.errors import UsageError
from hpceval.infiles import read_regular
from hpceval.trace.chrome import TraceError

VERSION = 1
# The ranks sized their event buffers against this machine's memory (cmd_trace --max-events):
# the cap only keeps a file that is not theirs from being read without end.
RAW_LIMIT = 1 << 40
HEADER_LIMIT = 1 << 20         # a raw file's JSON header line is a few hundred bytes
KIND_CALL, KIND_PHASE_BEGIN, KIND_PHASE_END = 0, 1, 2

# MPI calls that block waiting for other ranks (formats.md 3, the POP paper's "idle");
# every other MPI call is "overhead" (actively communicating).
IDLE_CALLS = frozenset((
    "MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Recv", "MPI_Probe",
    # MPI_Win_start may block until the target's matching MPI_Win_post (Open MPI's osc does)
    "MPI_Barrier", "MPI_Win_fence", "MPI_Win_start", "MPI_Win_wait", "MPI_Win_complete",
    "MPI_Win_unlock",
    "MPI_Win_unlock_all", "MPI_Win_flush", "MPI_Win_flush_all"))
STARTUP_CALLS = frozenset(("MPI_Init", "MPI_Init_thread"))


class NoTraceError(TraceError):
    """No rank wrote a trace: the program made no traced MPI_Init/MPI_Finalize."""

    exit_code = 1


def state(call: str) -> str:
    return "idle" if call in IDLE_CALLS else "overhead"


def read_raw(path: Union[str, Path]) -> Tuple[dict, np.ndarray]:
    """(header, events) of one rank's raw file."""
    path = Path(path)
    try:
        data = read_regular(str(path), str(path), RAW_LIMIT)   # never a planted FIFO or device
    except UsageError as exc:
        raise TraceError(f"broken raw trace: {exc}") from None
    nl = data.find(b"\n")
    try:
        header = json.loads(data[:nl])
        if header.get("format") != "hpceval-trace":
            raise ValueError("not an hpceval trace file")
        if header.get("version") != VERSION:
            raise ValueError(f"version {header.get('version')}, this hpceval reads {VERSION}")
        dtype = np.dtype([(name, code) for name, code in header["event_layout"]])
        if dtype.itemsize != header["event_size"]:
            raise ValueError("event_layout does not match event_size")
        body = data[nl + 1:]
        if nl < 0 or len(body) != header["events"] * dtype.itemsize:
            raise ValueError(f"{len(body)} bytes of events, the header says {header['events']}")
        events = np.frombuffer(body, dtype=dtype)
    except (ValueError, KeyError, TypeError) as exc:
        raise TraceError(f"{path}: broken raw trace: {exc}") from None
    return header, events


def every_rank_written(directory: Union[str, Path]) -> bool:
    """Has every rank of the job written its raw file (they are renamed into place whole)?
    Then the traced program's work is done: each rank is in or past PMPI_Finalize."""
    files = list(Path(directory).glob("rank-*.hpt"))
    if not files:
        return False
    try:
        head = read_regular(str(files[0]), str(files[0]), first=HEADER_LIMIT)
        nranks = json.loads(head.split(b"\n", 1)[0])["nranks"]
    except (UsageError, ValueError, KeyError, TypeError):
        return False
    return {p.name.split(".")[0] for p in files} >= {f"rank-{r}" for r in range(nranks)}


def _collect(directory: Path) -> Dict[int, Tuple[dict, np.ndarray]]:
    if not directory.is_dir():
        raise NoTraceError(f"no trace directory {directory}")
    files = sorted(directory.glob("rank-*.hpt"))
    if not files:
        raise NoTraceError("no rank wrote a trace: the command made no MPI_Init/MPI_Finalize "
                           "from C through a shared MPI library (not an MPI program, Fortran, "
                           "statically linked, or another MPI than the library's)")
    raw = [read_raw(f) for f in files]
    jobs = sorted({h["job"] for h, _ in raw})
    if len(jobs) > 1:
        raise TraceError(f"{directory} holds traces of {len(jobs)} MPI jobs: trace one MPI job at "
                         "a time")
    nranks = raw[0][0]["nranks"]
    by_rank: Dict[int, Tuple[dict, np.ndarray]] = {}
    for h, ev in raw:
        if h["nranks"] != nranks or h["rank"] in by_rank or not 0 <= h["rank"] < nranks:
            raise TraceError(f"{directory}: inconsistent raw traces (rank {h['rank']} of "
                             f"{h['nranks']})")
        by_rank[h["rank"]] = (h, ev)
    missing = [r for r in range(nranks) if r not in by_rank]
    if missing:
        shown = ", ".join(map(str, missing[:20])) + (" ..." if len(missing) > 20 else "")
        raise TraceError(f"rank{'s' if len(missing) > 1 else ''} {shown} of {nranks} wrote no "
                         "trace (did they reach MPI_Finalize?)")
    return by_rank


def _aligned(h: dict, t: np.ndarray) -> np.ndarray:
    """Local ns -> rank 0's clock in ns (float64: exact to well below 1 ns for any uptime)."""
    t = t.astype(np.float64)
    t_i, t_f = float(h["t_init_ns"]), float(h["t_finalize_ns"])
    o_i, o_f = (float(o) for o in h["offset_ns"])
    if t_f > t_i:
        return t + o_i + (o_f - o_i) * (t - t_i) / (t_f - t_i)
    return t + o_i


def _phase_slices(h: dict, ev: np.ndarray, b: np.ndarray) -> List[Tuple[str, float, float]]:
    """Pair the phase marks of one rank into (name, begin, end) slices. An end closes the
    innermost open phase of that name and any opened inside it; an end of a phase that is not
    open is ignored; phases still open at MPI_Finalize end there."""
    names = h["phases"]
    out: List[Tuple[str, float, float]] = []
    stack: List[Tuple[int, float]] = []
    marks = np.nonzero(ev["kind"] != KIND_CALL)[0]
    for i, kind, pid, t in zip(marks.tolist(), ev["kind"][marks].tolist(),
                               ev["id"][marks].tolist(), b[marks].tolist()):
        if kind == KIND_PHASE_BEGIN:
            stack.append((pid, t))
        elif any(p == pid for p, _ in stack):
            while stack:
                p, t0 = stack.pop()
                out.append((names[p], t0, t))
                if p == pid:
                    break
    if stack:
        fin = np.nonzero((ev["kind"] == KIND_CALL)
                         & (ev["id"] == h["calls"].index("MPI_Finalize")))[0]
        t_end = float(b[fin[0]]) if len(fin) else float(b.max())
        out += [(names[p], t0, t_end) for p, t0 in stack]
    return out


def merge_dir(directory: Union[str, Path], command: str) -> dict:
    """The Chrome trace (formats.md 3) of the raw files in `directory`."""
    by_rank = _collect(Path(directory))
    nranks = len(by_rank)
    begins, ends = {}, {}
    for r, (h, ev) in by_rank.items():
        begins[r] = _aligned(h, ev["t_begin"])
        ends[r] = _aligned(h, ev["t_end"])
    t0 = min((float(b.min()) for b in begins.values() if len(b)), default=0.0)

    def us(t: np.ndarray) -> np.ndarray:
        return np.round((t - t0) / 1000.0, 3)

    events: List[dict] = [{"ph": "M", "name": "process_name", "pid": 0, "tid": 0,
                           "args": {"name": command}}]
    events += [{"ph": "M", "name": "thread_name", "pid": 0, "tid": r, "args": {"name": f"rank {r}"}}
               for r in range(nranks)]
    for r in range(nranks):
        h, ev = by_rank[r]
        phases = _phase_slices(h, ev, begins[r])
        if phases:
            ts = us(np.array([p[1] for p in phases]))
            dur = np.round(us(np.array([p[2] for p in phases])) - ts, 3)
            events += [{"ph": "X", "cat": "phase", "name": p[0], "pid": 0, "tid": r, "ts": ts_,
                        "dur": max(dur_, 0.0)}
                       for p, ts_, dur_ in zip(phases, ts.tolist(), dur.tolist())]
        calls = np.nonzero(ev["kind"] == KIND_CALL)[0]
        ts = us(begins[r][calls])
        dur = np.round(us(ends[r][calls]) - ts, 3)
        names = h["calls"]
        # Raw files from before the tag field (32-byte events) have none: no tags then.
        tags = ev["tag"][calls].tolist() if "tag" in ev.dtype.names else [-1] * len(calls)
        for ts_, dur_, cid, nbytes, peer, tag in zip(ts.tolist(), dur.tolist(),
                                                     ev["id"][calls].tolist(),
                                                     ev["bytes"][calls].tolist(),
                                                     ev["peer"][calls].tolist(), tags):
            name = names[cid]
            args = {"state": state(name)}
            if nbytes >= 0:
                args["bytes"] = nbytes
            if peer >= 0:
                args["peer"] = peer
            if tag >= 0:
                args["tag"] = tag
            events.append({"ph": "X", "cat": "mpi", "name": name, "pid": 0, "tid": r,
                           "ts": ts_, "dur": max(dur_, 0.0), "args": args})
    h0 = by_rank[0][0]
    t0_unix = (h0["realtime_at_init_ns"] + (t0 - h0["monotonic_at_init_ns"])) / 1e9
    headers = [by_rank[r][0] for r in range(nranks)]
    return {
        "traceEvents": events,
        "displayTimeUnit": "ns",
        "otherData": {
            "hpceval_trace_version": VERSION,
            "nranks": nranks,
            "command": command,
            "hosts": [h["host"] for h in headers],
            "clock": "CLOCK_MONOTONIC aligned to rank 0",
            "clock_offset_us": [h["offset_ns"][0] / 1000.0 for h in headers],
            # Half the shortest clock ping-pong: the measured offset is within this of the
            # true one (0 for ranks on rank 0's host, which read the same clock).
            "clock_error_bound_us": [0.0 if h.get("same_host_as_rank0") else
                                     h.get("rtt_ns", [0])[0] / 2000.0 for h in headers],
            "event_cost_ns": [h["event_cost_ns"] for h in headers],
            "events": [h["events"] for h in headers],
            "dropped_events": [h["dropped"] for h in headers],
            "t0_unix": t0_unix,
        },
    }


def summarize(trace: dict) -> List[dict]:
    """Per rank: the traced window (end of MPI_Init to start of MPI_Finalize, else the span of
    its slices) in us, the % of it inside MPI (and waiting: state idle), and per phase."""
    from hpceval.trace.chrome import tracks

    out = []
    for rank, evs in tracks(trace).items():
        init_end = [e["ts"] + e["dur"] for e in evs if e["name"] in STARTUP_CALLS]
        fin = [e["ts"] for e in evs if e["name"] == "MPI_Finalize"]
        lo = max(init_end) if init_end else min((e["ts"] for e in evs), default=0.0)
        hi = min(fin) if fin else max((e["ts"] + e["dur"] for e in evs), default=0.0)
        window = max(hi - lo, 1e-9)
        mpi = idle = 0.0
        phases: Dict[str, float] = defaultdict(float)
        for e in evs:
            if e.get("cat") == "mpi" and e["name"] not in STARTUP_CALLS | {"MPI_Finalize"}:
                mpi += e["dur"]
                if (e.get("args") or {}).get("state") == "idle":
                    idle += e["dur"]
            elif e.get("cat") == "phase":
                phases[e["name"]] += e["dur"]
        out.append({"rank": rank, "window_us": hi - lo,
                    "mpi_pct": 100.0 * mpi / window, "idle_pct": 100.0 * idle / window,
                    "phase_pct": {k: 100.0 * v / window for k, v in phases.items()},
                    "slices": len(evs)})
    return out
