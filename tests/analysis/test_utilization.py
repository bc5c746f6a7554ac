"""Timelines, utilization counts, per-rank summaries and Gantt windows (hpceval.analysis.
utilization) on hand-made Chrome traces shaped as docs/trace.md, with known answers."""
import numpy as np
import pytest

from hpceval.analysis.utilization import (BUSY, IDLE, NO_PHASE, OVERHEAD, STATES, active_range,
                                          covered,
                                          dominant_activity, rank_summary, runs_of,
                                          select_window, steady_range, timelines,
                                          utilization_counts)


def X(rank, name, ts, dur, cat="mpi", state=None):
    e = {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": rank, "ts": ts, "dur": dur}
    if cat == "mpi":
        e["args"] = {"state": state} if state else {}
    return e


def meta(n):
    return ([{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "cmd"}}]
            + [{"ph": "M", "name": "thread_name", "pid": 0, "tid": r, "args": {"name": f"rank {r}"}}
               for r in range(n)])


def three_ranks():
    """0..100 us. rank 0: compute 0-60, halo 60-100 (MPI_Isend 60-70 overhead, MPI_Waitall
    70-100 idle). rank 1: compute 0-100. rank 2: no phases, MPI_Barrier 50-100 (idle)."""
    ev = meta(3) + [
        X(0, "compute", 0, 60, "phase"), X(0, "halo", 60, 40, "phase"),
        X(0, "MPI_Isend", 60, 10, state="overhead"), X(0, "MPI_Waitall", 70, 30, state="idle"),
        X(1, "compute", 0, 100, "phase"),
        X(2, "MPI_Barrier", 50, 50, state="idle"),
    ]
    return {"traceEvents": ev, "displayTimeUnit": "ns",
            "otherData": {"hpceval_trace_version": 1, "nranks": 3, "command": "cmd",
                          "hosts": ["n1", "n1", "n2"], "event_cost_ns": [200.0, 200.0, 100.0],
                          "events": [4, 1, 1], "dropped_events": [0, 0, 0]}}


def test_timelines_segment_each_rank():
    tl = timelines(three_ranks())
    assert (tl.t0, tl.t1, tl.ranks) == (0.0, 100.0, [0, 1, 2])
    assert tl.phases == ["compute", "halo"]
    assert tl.activities == [NO_PHASE, "compute", "halo", "MPI_Barrier", "MPI_Isend",
                             "MPI_Waitall"]
    r0 = tl.tracks[0]
    assert r0.start.tolist() == [0, 60, 70] and r0.end.tolist() == [60, 70, 100]
    assert [tl.activities[a] for a in r0.activity] == ["compute", "MPI_Isend", "MPI_Waitall"]
    assert r0.state.tolist() == [BUSY, OVERHEAD, IDLE]
    assert [tl.phases[p] for p in r0.phase] == ["compute", "halo", "halo"]
    r2 = tl.tracks[2]  # busy outside any phase until the barrier
    assert r2.start.tolist() == [0, 50] and r2.phase.tolist() == [-1, -1]
    assert tl.activities[r2.activity[0]] == NO_PHASE and r2.state.tolist() == [BUSY, IDLE]
    assert tl.events == 6


def test_counts_add_up_to_nranks_with_exact_values():
    tl = timelines(three_ranks())
    edges, c = utilization_counts(tl, bins=4)
    assert edges.tolist() == [0, 25, 50, 75, 100]
    assert c["busy"] == pytest.approx([3.0, 3.0, 1.4, 1.0])
    assert c["overhead"] == pytest.approx([0.0, 0.0, 0.4, 0.0])
    assert c["idle"] == pytest.approx([0.0, 0.0, 1.2, 2.0])
    for bins in (1, 3, 7, 200):
        _, c = utilization_counts(tl, bins=bins)
        assert np.allclose(c["busy"] + c["overhead"] + c["idle"], 3.0)
    _, c = utilization_counts(tl, bins=1)
    # over the whole run: (60+100+50) busy, 10 overhead, (30+50) idle rank-us out of 300
    assert c["busy"][0] == pytest.approx(2.1) and c["idle"][0] == pytest.approx(0.8)


def test_counts_over_a_time_range():
    edges, c = utilization_counts(timelines(three_ranks()), bins=2, start=60, end=80)
    assert edges.tolist() == [60, 70, 80]
    assert c["overhead"].tolist() == [1.0, 0.0]
    assert c["idle"].tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="empty time range"):
        utilization_counts(timelines(three_ranks()), start=200)


def test_state_defaults_by_call_name_and_nesting_is_clipped():
    ev = meta(1) + [X(0, "compute", 0, 100, "phase"),
                    X(0, "MPI_Allreduce", 10, 20),           # no state: overhead
                    X(0, "MPI_Wait", 15, 10),                # inside the allreduce: clipped away
                    X(0, "MPI_Recv", 40, 10), X(0, "MPI_Win_flush_all", 60, 5)]  # idle by name
    tl = timelines({"traceEvents": ev})
    tr = tl.tracks[0]
    names = [tl.activities[a] for a in tr.activity]
    assert names == ["compute", "MPI_Allreduce", "compute", "MPI_Recv", "compute",
                     "MPI_Win_flush_all", "compute"]
    assert tr.state.tolist() == [BUSY, OVERHEAD, BUSY, IDLE, BUSY, IDLE, BUSY]
    assert "MPI_Wait" not in names


def test_covered_and_dominant_activity():
    tl = timelines(three_ranks())
    tr = tl.tracks[0]
    edges = np.linspace(0, 100, 11)
    assert covered(tr, tr.state == IDLE, edges).tolist() == [0] * 7 + [10, 10, 10]
    dom = dominant_activity(tr, edges)
    assert [tl.activities[a] for a in dom] == ["compute"] * 6 + ["MPI_Isend"] + ["MPI_Waitall"] * 3
    assert runs_of(dom) == [(int(dom[0]), 0, 6), (int(dom[6]), 6, 7), (int(dom[7]), 7, 10)]
    # a column shows the activity that covers most of it
    dom = dominant_activity(tr, np.array([55.0, 75.0]))
    assert tl.activities[dom[0]] == "MPI_Isend"   # 10 of 20 us vs compute 5, waitall 5


def test_rank_summary():
    rows = rank_summary(timelines(three_ranks()))
    assert [r["rank"] for r in rows] == [0, 1, 2]
    r0, r1, r2 = rows
    assert r0["states"] == pytest.approx({"busy": 60.0, "overhead": 10.0, "idle": 30.0})
    assert r0["phases"] == pytest.approx({"compute": 60.0, "halo": 40.0})
    assert r0["calls"] == pytest.approx({"MPI_Isend": 10.0, "MPI_Waitall": 30.0})
    assert r1["states"]["busy"] == 100.0 and r1["calls"] == {}
    assert r2["phases"] == {"compute": 0.0, "halo": 0.0} and r2["calls"] == {"MPI_Barrier": 50.0}
    assert [r["host"] for r in rows] == ["n1", "n1", "n2"]
    assert r0["tracing_cost"] == pytest.approx(100 * 4 * 0.2 / 100)   # 4 events x 0.2 us / 100 us
    assert r2["dropped"] == 0
    for r in rows:
        assert sum(r["states"].values()) == pytest.approx(100.0)


def long_trace(nranks=4, iterations=500, step=100.0):
    """A steady solver: per iteration 70 us compute, a halo phase with a sendrecv and a wait,
    a global sum; rank 3 computes 10 us longer (and sums for 10 us less)."""
    ev = meta(nranks)
    for it in range(iterations):
        t = it * step
        for r in range(nranks):
            c = 70.0 if r != 3 else 80.0
            ev.append(X(r, "compute", t, c, "phase"))
            ev.append(X(r, "halo", t + c, 10.0, "phase"))
            ev.append(X(r, "MPI_Isend", t + c, 2.0, state="overhead"))
            ev.append(X(r, "MPI_Waitall", t + c + 2, 8.0, state="idle"))
            ev.append(X(r, "global_sum", t + c + 10, step - c - 10, "phase"))
            ev.append(X(r, "MPI_Allreduce", t + c + 10, step - c - 10, state="overhead"))
    return {"traceEvents": ev, "otherData": {"nranks": nranks}}


def test_window_selection():
    tl = timelines(long_trace())
    whole = select_window(tl, max_segments=10 ** 6)
    assert whole.whole and (whole.start, whole.end) == (tl.t0, tl.t1)
    w = select_window(tl, max_segments=400)
    assert not w.whole and w.segments <= 420 and w.segments > 200
    assert w.note == "middle of the run"
    assert (w.start + w.end) / 2 == pytest.approx((tl.t0 + tl.t1) / 2, abs=100.0)  # 1 iteration
    first = select_window(tl, max_segments=400, where="start")
    assert first.start == tl.t0 and first.note == "start of the run"
    given = select_window(tl, start=1000, end=2000)
    assert (given.start, given.end, given.whole) == (1000, 2000, False)
    assert given.note == "given range"
    with pytest.raises(ValueError, match="empty window"):
        select_window(tl, start=10 ** 9)


def test_long_trace_counts_show_the_imbalance():
    tl = timelines(long_trace())
    _, c = utilization_counts(tl, bins=50)
    assert np.allclose(c["busy"] + c["overhead"] + c["idle"], 4.0)
    rows = rank_summary(tl)
    # ranks 0-2 compute 70 of every 100 us, rank 3 80
    assert [round(r["states"]["busy"]) for r in rows] == [70, 70, 70, 80]
    assert rows[0]["phases"]["global_sum"] == pytest.approx(20.0)
    assert set(STATES) == set(rows[0]["states"])


def test_window_and_summary_within_the_phases():
    """A real run spends most of its trace in MPI_Init and set-up: the Gantt window and the
    shares are taken between the first and the last phase slice."""
    tr = long_trace(iterations=100)        # phases 0 .. 10000 us
    for r in range(4):
        tr["traceEvents"].append(X(r, "MPI_Init", -50000.0, 49000.0, state="overhead"))
        tr["traceEvents"].append(X(r, "MPI_Finalize", 20000.0, 5000.0, state="overhead"))
    tl = timelines(tr)
    assert (tl.t0, tl.t1) == (-50000.0, 25000.0)
    assert active_range(tl) == (0.0, 10000.0)
    w = select_window(tl, max_segments=400, within=active_range(tl))
    assert 0 < w.start < w.end < 10000 and w.note == "middle of the phases"
    assert abs((w.start + w.end) / 2 - 5000) <= 100
    everything = select_window(tl, max_segments=10 ** 6, within=active_range(tl))
    assert everything.whole and (everything.start, everything.end) == (0.0, 10000.0)
    assert everything.note == "all phases"
    rows = rank_summary(tl, *active_range(tl))
    assert [round(r["states"]["busy"]) for r in rows] == [70, 70, 70, 80]
    assert "MPI_Init" not in rows[0]["calls"]
    whole = rank_summary(tl)
    assert whole[0]["calls"]["MPI_Init"] == pytest.approx(100 * 49000 / 75000)
    assert active_range(timelines(three_ranks())) == (0.0, 100.0)


def test_active_range_of_a_program_without_phases():
    """Any MPI program: between the end of MPI_Init on every rank and the first MPI_Finalize."""
    ev = meta(2) + [X(0, "MPI_Init", 0, 50, state="overhead"), X(1, "MPI_Init", 0, 60,
                                                                 state="overhead"),
                    X(0, "MPI_Send", 70, 5), X(1, "MPI_Recv", 65, 10),
                    X(0, "MPI_Finalize", 90, 10), X(1, "MPI_Finalize", 95, 5)]
    tl = timelines({"traceEvents": ev})
    assert active_range(tl) == (60.0, 90.0)
    bare = timelines({"traceEvents": meta(1) + [X(0, "MPI_Send", 0, 5)]})
    assert active_range(bare) == (0.0, 5.0)


def test_steady_range_is_the_longest_stretch_with_every_rank_in_a_phase():
    """Two solves (10-40 and 60-150 us) separated by the sampler's pause; inside a solve the
    phases follow each other 0.1 us apart (the tracer's MPI_Pcontrol calls)."""
    ev = meta(2)
    for r in range(2):
        ev += [X(r, "compute", 10, 15, "phase"), X(r, "halo", 25.1, 14.9, "phase"),
               X(r, "MPI_Bcast", 45, 5, state="overhead"),
               X(r, "compute", 60, 50, "phase"), X(r, "global_sum", 110.1, 39.9 - r, "phase")]
    tl = timelines({"traceEvents": ev})
    lo, hi = steady_range(tl)
    assert lo == pytest.approx(60) and hi == pytest.approx(149)   # rank 1 leaves at 149
    # no phases at all: the active range
    plain = timelines({"traceEvents": meta(1) + [X(0, "MPI_Barrier", 0, 5, state="idle")]})
    assert steady_range(plain) == active_range(plain)
