"""Per-rank timelines and utilization counts from a merged trace (Chrome trace-event JSON,
docs/trace.md), as the POP-on-X1 paper draws them: a task Gantt chart (rank vs time, a colour
per phase or MPI call) and utilization counts (how many ranks are busy, overhead or idle).

States, as in the paper: busy = outside MPI (computing; phases tell what), overhead = inside an
MPI call that actively communicates, idle = inside a call that blocks waiting for other ranks
(the MPI slice's args.state; by call name when a slice has none).

Each rank's timeline covers the whole trace, from its earliest to its latest event on any rank,
as contiguous segments: time outside every MPI slice is busy, so the three states add up to the
number of ranks at every instant. Nested or overlapping slices on one rank (a library's own MPI
calls inside a traced call) are clipped to the outer one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import numpy as np

from hpceval.trace.merge import STARTUP_CALLS
from hpceval.trace.merge import state as mpi_state

STATES = ("busy", "overhead", "idle")
BUSY, OVERHEAD, IDLE = 0, 1, 2
NO_PHASE = "(no phase)"   # activity of busy time outside every phase slice

def _state_of(event: dict) -> int:
    """The slice's args.state; for a slice without one, the trace library's rule by call name."""
    s = (event.get("args") or {}).get("state")
    if s not in ("idle", "overhead"):
        s = mpi_state(str(event.get("name", "")))
    return IDLE if s == "idle" else OVERHEAD


@dataclass
class RankTimeline:
    """Contiguous segments [start[i], end[i]) in us covering [t0, t1] of the trace; per segment
    the activity (index into Timelines.activities), state (BUSY/OVERHEAD/IDLE) and phase (index
    into Timelines.phases, -1 outside every phase). Consecutive equal segments are merged."""
    rank: int
    start: np.ndarray
    end: np.ndarray
    activity: np.ndarray
    state: np.ndarray
    phase: np.ndarray
    events: int = 0            # X slices of this rank in the trace


@dataclass
class Timelines:
    t0: float
    t1: float
    ranks: List[int]
    tracks: Dict[int, RankTimeline]
    activities: List[str]                 # NO_PHASE, the phases, then the MPI calls
    activity_state: List[int]             # BUSY for NO_PHASE and phases, else the first seen
                                          # state of the MPI call
    phases: List[str]
    other: dict = field(default_factory=dict)   # the trace's otherData

    @property
    def nranks(self) -> int:
        return len(self.ranks)

    @property
    def span(self) -> float:
        return self.t1 - self.t0

    @property
    def events(self) -> int:
        return sum(t.events for t in self.tracks.values())


def _x_events(trace: dict) -> Dict[int, List[dict]]:
    """X slices per rank (tid), with a thread_name metadata event counting as a rank too."""
    out: Dict[int, List[dict]] = {}
    for e in trace.get("traceEvents") or []:
        if e.get("ph") == "X" and isinstance(e.get("ts"), (int, float)):
            out.setdefault(int(e.get("tid", 0)), []).append(e)
        elif e.get("ph") == "M" and e.get("name") == "thread_name":
            out.setdefault(int(e.get("tid", 0)), [])
    return out


def _intervals(events: List[dict]) -> Tuple[np.ndarray, np.ndarray, List[dict]]:
    """Sorted, non-overlapping [start, end) of the events (a slice starting inside an earlier one
    is clipped to its end; one left empty is dropped)."""
    events = sorted(events, key=lambda e: (e["ts"], -float(e.get("dur") or 0)))
    if not events:
        return np.zeros(0), np.zeros(0), []
    s = np.array([float(e["ts"]) for e in events])
    e_ = s + np.array([max(float(e.get("dur") or 0), 0.0) for e in events])
    prev_end = np.concatenate([[-np.inf], np.maximum.accumulate(e_)[:-1]])
    s = np.maximum(s, prev_end)
    keep = e_ > s
    return s[keep], e_[keep], [ev for ev, k in zip(events, keep) if k]


def _lookup(starts: np.ndarray, ends: np.ndarray, t: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """For each instant t: the index of the interval containing it and whether one does."""
    j = np.searchsorted(starts, t, side="right") - 1
    jj = np.clip(j, 0, max(len(starts) - 1, 0))
    inside = (j >= 0) & (t < ends[jj]) if len(starts) else np.zeros(len(t), bool)
    return jj, inside


def timelines(trace: dict) -> Timelines:
    """Every rank's timeline of a merged trace (validated elsewhere: hpceval.trace.chrome)."""
    per_rank = _x_events(trace)
    all_x = [e for evs in per_rank.values() for e in evs]
    if all_x:
        t0 = min(float(e["ts"]) for e in all_x)
        t1 = max(float(e["ts"]) + max(float(e.get("dur") or 0), 0.0) for e in all_x)
    else:
        t0 = t1 = 0.0
    activities, activity_state, phases = [NO_PHASE], [BUSY], []
    act_index: Dict[Tuple[str, str], int] = {}

    def act(kind: str, name: str, state: int) -> int:
        if (kind, name) not in act_index:
            act_index[(kind, name)] = len(activities)
            activities.append(name)
            activity_state.append(state)
        return act_index[(kind, name)]

    # Phases first, then calls, each in order of first appearance: stable colours.
    for e in sorted(all_x, key=lambda e: e["ts"]):
        if e.get("cat") == "phase":
            name = str(e.get("name"))
            if name not in phases:
                phases.append(name)
            act("phase", name, BUSY)
    for e in sorted(all_x, key=lambda e: e["ts"]):
        if e.get("cat") != "phase":
            act("mpi", str(e.get("name")), _state_of(e))

    tracks = {}
    for rank in sorted(per_rank):
        evs = per_rank[rank]
        ps, pe, pev = _intervals([e for e in evs if e.get("cat") == "phase"])
        ms, me, mev = _intervals([e for e in evs if e.get("cat") != "phase"])
        p_idx = np.array([phases.index(str(e.get("name"))) for e in pev], dtype=int)
        p_act = np.array([act_index[("phase", str(e.get("name")))] for e in pev], dtype=int)
        m_act = np.array([act_index[("mpi", str(e.get("name")))] for e in mev], dtype=int)
        m_state = np.array([_state_of(e) for e in mev], dtype=np.int8)
        bounds = np.unique(np.clip(np.concatenate([[t0, t1], ps, pe, ms, me]), t0, t1))
        if len(bounds) < 2:
            bounds = np.array([t0, t1])
        a, b = bounds[:-1], bounds[1:]
        mid = (a + b) / 2
        jm, in_m = _lookup(ms, me, mid)
        jp, in_p = _lookup(ps, pe, mid)
        phase = np.where(in_p, p_idx[jp] if len(p_idx) else -1, -1)
        activity = np.where(in_m, m_act[jm] if len(m_act) else 0,
                            np.where(in_p, p_act[jp] if len(p_act) else 0, 0))
        state = np.where(in_m, m_state[jm] if len(m_state) else BUSY, BUSY).astype(np.int8)
        # merge runs of equal segments
        change = np.ones(len(a), bool)
        change[1:] = ((activity[1:] != activity[:-1]) | (state[1:] != state[:-1])
                      | (phase[1:] != phase[:-1]))
        first = np.flatnonzero(change)
        last_end = np.concatenate([first[1:], [len(a)]]) - 1
        tracks[rank] = RankTimeline(rank, a[first], b[last_end], activity[first], state[first],
                                    phase[first], events=len(evs))
    return Timelines(t0, t1, sorted(per_rank), tracks, activities, activity_state, phases,
                     dict(trace.get("otherData") or {}))


# ---------------------------------------------------------------- binning

def covered(track: RankTimeline, mask: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Time (us) covered by the segments selected by `mask` in each bin [edges[i], edges[i+1])."""
    a, b = track.start[mask], track.end[mask]
    if len(a) == 0:
        return np.zeros(len(edges) - 1)
    cum = np.concatenate([[0.0], np.cumsum(b - a)])
    j = np.searchsorted(a, edges, side="right") - 1
    jj = np.clip(j, 0, len(a) - 1)
    f = np.where(j >= 0, cum[jj] + np.clip(edges - a[jj], 0.0, (b - a)[jj]), 0.0)
    return np.diff(f)


def _edges(tl: Timelines, bins: int, start: Optional[float], end: Optional[float]) -> np.ndarray:
    lo = tl.t0 if start is None else max(tl.t0, float(start))
    hi = tl.t1 if end is None else min(tl.t1, float(end))
    if not hi > lo:
        raise ValueError(f"empty time range [{lo:g}, {hi:g}] us (trace spans "
                         f"[{tl.t0:g}, {tl.t1:g}])")
    return np.linspace(lo, hi, int(bins) + 1)


def utilization_counts(tl: Timelines, bins: int = 200, start: Optional[float] = None,
                       end: Optional[float] = None) -> Tuple[np.ndarray, Dict[str, np.ndarray]]:
    """(edges, {"busy", "overhead", "idle"}): on `bins` equal time bins over [start, end] (the
    whole trace by default), how many ranks are in each state, averaged within each bin; the
    three add up to the number of ranks in every bin."""
    edges = _edges(tl, bins, start, end)
    width = np.diff(edges)
    counts = {s: np.zeros(len(width)) for s in STATES}
    for track in tl.tracks.values():
        for code, s in enumerate(STATES):
            counts[s] += covered(track, track.state == code, edges) / width
    return edges, counts


def dominant_activity(track: RankTimeline, edges: np.ndarray) -> np.ndarray:
    """Per bin, the activity that covers most of it (what a pixel column of a Gantt chart shows);
    -1 where nothing does."""
    acts = np.unique(track.activity)
    if len(acts) == 0:
        return np.full(len(edges) - 1, -1)
    cov = np.stack([covered(track, track.activity == a, edges) for a in acts])
    out = acts[np.argmax(cov, axis=0)]
    return np.where(cov.max(axis=0) > 0, out, -1)


def runs_of(codes: np.ndarray) -> List[Tuple[int, int, int]]:
    """(code, first, past-last) index runs of equal values: bars of a Gantt row."""
    if len(codes) == 0:
        return []
    change = np.flatnonzero(np.diff(codes)) + 1
    firsts = np.concatenate([[0], change])
    lasts = np.concatenate([change, [len(codes)]])
    return [(int(codes[f]), int(f), int(l)) for f, l in zip(firsts, lasts)]


# ---------------------------------------------------------------- summaries and windows

def active_range(tl: Timelines) -> Tuple[float, float]:
    """The part of the trace worth drawing: from the first phase slice to the last on any rank
    (a proxy's timed loops, without MPI start-up, set-up and verification); in a trace without
    phases (any MPI program), from the end of MPI_Init on every rank to the first rank's
    MPI_Finalize; else the whole trace."""
    lo, hi = np.inf, -np.inf
    for tr in tl.tracks.values():
        inside = np.flatnonzero(tr.phase >= 0)
        if len(inside):
            lo, hi = min(lo, tr.start[inside[0]]), max(hi, tr.end[inside[-1]])
    if hi > lo:
        return float(lo), float(hi)
    init = [k for k, a in enumerate(tl.activities) if a in STARTUP_CALLS and tl.activity_state[k]]
    fin = [k for k, a in enumerate(tl.activities) if a == "MPI_Finalize" and tl.activity_state[k]]
    lo, hi = tl.t0, tl.t1
    for tr in tl.tracks.values():
        ends = tr.end[np.isin(tr.activity, init)]
        starts = tr.start[np.isin(tr.activity, fin)]
        lo = max(lo, float(ends.max())) if len(ends) else lo
        hi = min(hi, float(starts.min())) if len(starts) else hi
    return (lo, hi) if hi > lo else (tl.t0, tl.t1)


# Two phases follow each other through two MPI_Pcontrol calls, so consecutive phase slices are
# apart by the tracer's own cost (~0.1 us); a pause between samples takes several microseconds.
PHASE_GAP_US = 1.0


def _merged(start: np.ndarray, end: np.ndarray, gap: float = 0.0) -> List[Tuple[float, float]]:
    """Intervals (sorted by start) joined where they overlap or are apart by at most gap."""
    out: List[List[float]] = []
    for a, b in zip(start.tolist(), end.tolist()):
        if out and a <= out[-1][1] + gap:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def _intersect(x: List[Tuple[float, float]], y: List[Tuple[float, float]]) -> List[Tuple[float, float]]:
    out, i, j = [], 0, 0
    while i < len(x) and j < len(y):
        lo, hi = max(x[i][0], y[j][0]), min(x[i][1], y[j][1])
        if hi > lo:
            out.append((lo, hi))
        if x[i][1] < y[j][1]:
            i += 1
        else:
            j += 1
    return out


def steady_range(tl: Timelines) -> Tuple[float, float]:
    """The longest stretch in which every rank is inside a phase: one timed solve or
    integration, without the pauses between samples (the sampler's decision, barriers, checks),
    where a Gantt window in the middle shows the steady iterations. active_range when no such
    stretch exists (a trace without phases)."""
    common: Optional[List[Tuple[float, float]]] = None
    for tr in tl.tracks.values():
        inside = tr.phase >= 0
        mine = _merged(tr.start[inside], tr.end[inside], PHASE_GAP_US)
        common = mine if common is None else _intersect(common, mine)
    if not common:
        return active_range(tl)
    lo, hi = max(common, key=lambda iv: iv[1] - iv[0])
    return float(lo), float(hi)


def rank_summary(tl: Timelines, start: Optional[float] = None,
                 end: Optional[float] = None) -> List[dict]:
    """Per rank, in % of [start, end] (the whole trace by default): busy / overhead / idle, each
    phase (MPI time inside a phase counts to it, as the phase timers count it) and each MPI
    call; plus events, dropped events and the estimated tracing cost of the whole trace (events
    x measured cost per event / span) where the trace says them (otherData)."""
    edges = _edges(tl, 1, start, end)
    span = float(edges[1] - edges[0])
    other = tl.other
    out = []
    for rank in tl.ranks:
        tr = tl.tracks[rank]

        def pct(sel):
            return float(100.0 * covered(tr, sel, edges)[0] / span)

        row = {"rank": rank,
               "states": {s: pct(tr.state == k) for k, s in enumerate(STATES)},
               "phases": {p: pct(tr.phase == k) for k, p in enumerate(tl.phases)},
               "calls": {}, "events": tr.events}
        for k, name in enumerate(tl.activities):
            if tl.activity_state[k] != BUSY and (tr.activity == k).any():   # an MPI call
                share = pct(tr.activity == k)
                if share > 0:
                    row["calls"][name] = share

        def per_rank(key):
            v = other.get(key)
            return v[rank] if isinstance(v, list) and 0 <= rank < len(v) else None

        row["host"] = per_rank("hosts")
        row["dropped"] = per_rank("dropped_events")
        cost = per_rank("event_cost_ns")
        n = per_rank("events")
        n = tr.events if n is None else n
        row["tracing_cost"] = (100.0 * n * cost * 1e-3 / tl.span
                               if isinstance(cost, (int, float)) and tl.span > 0 else None)
        out.append(row)
    return out


@dataclass(frozen=True)
class Window:
    start: float          # us, in the trace's time
    end: float
    whole: bool           # the whole range it was chosen from
    segments: int         # timeline segments (merged slices, busy time between them) inside
    note: str             # what was chosen, for a caption


def select_window(tl: Timelines, start: Optional[float] = None, end: Optional[float] = None,
                  max_segments: int = 2000, where: str = "middle",
                  within: Optional[Tuple[float, float]] = None) -> Window:
    """The time range to draw as a Gantt chart: [start, end] when given (clipped to the trace).
    Else, from `within` (the whole trace by default; active_range for a proxy's timed loops):
    all of it when its timelines have at most max_segments segments (all ranks together), else
    a window of about max_segments of them, counted from the middle segment (where="middle": a
    steady solver's iterations are alike), or from the first ("start") or to the last ("end")."""
    def count(lo, hi):   # segments overlapping [lo, hi], all ranks: what a Gantt chart draws
        return sum(int(np.count_nonzero((tr.end > lo) & (tr.start < hi)))
                   for tr in tl.tracks.values())

    if start is not None or end is not None:
        lo = tl.t0 if start is None else max(tl.t0, float(start))
        hi = tl.t1 if end is None else min(tl.t1, float(end))
        if not hi > lo:
            raise ValueError(f"empty window [{lo:g}, {hi:g}] us")
        whole = lo <= tl.t0 and hi >= tl.t1
        return Window(lo, hi, whole, count(lo, hi), "whole run" if whole else "given range")
    lo, hi = within if within is not None else (tl.t0, tl.t1)
    lo, hi = max(lo, tl.t0), min(hi, tl.t1)
    what = "run" if (lo, hi) == (tl.t0, tl.t1) else "phases"
    total = count(lo, hi)
    if total <= max_segments or not hi > lo:
        return Window(lo, hi, True, total, "whole run" if what == "run" else "all phases")
    # segment starts of every rank inside the range, in time order: the window spans
    # max_segments of them
    starts = np.sort(np.concatenate([tr.start[(tr.start >= lo) & (tr.start < hi)]
                                     for tr in tl.tracks.values()]))
    m = int(max(1, min(max_segments, len(starts) - 1)))
    if where == "start":
        a, b = lo, starts[m]
    elif where == "end":
        a, b = starts[-m - 1], hi
    else:
        i0 = max(0, (len(starts) - m) // 2)
        a, b = starts[i0], starts[min(i0 + m, len(starts) - 1)]
    name = {"start": "start", "end": "end"}.get(where, "middle")
    return Window(float(a), float(b), False, count(a, b), f"{name} of the {what}")
