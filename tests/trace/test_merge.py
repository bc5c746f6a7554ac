"""merge_dir on hand-written raw files, and the Chrome trace validator (hpceval/trace)."""
from __future__ import annotations

import json

import pytest

from hpceval.trace import NoTraceError, TraceError, load, merge_dir, summarize, tracks, validate
from trace_helpers import calls_of, write_raw

US = 1000  # ns


def two_ranks(d, offset1=(0, 0)):
    # rank 0: Init, phase "solve" holding a Send and a Wait, Finalize
    write_raw(d, 0, 2, [(0, 1 * US, -1, -1, "MPI_Init", 0),
                        (2 * US, 2 * US, -1, -1, "solve", 1),
                        (3 * US, 4 * US, 800, 1, "MPI_Send", 0),
                        (5 * US, 7 * US, -1, -1, "MPI_Wait", 0),
                        (8 * US, 8 * US, -1, -1, "solve", 2),
                        (9 * US, 10 * US, -1, -1, "MPI_Finalize", 0)],
              phases=["solve"], t_init=1 * US, t_finalize=9 * US, cost=40.0)
    # rank 1: its clock is 0.5 us behind rank 0's
    write_raw(d, 1, 2, [(500, 1500, -1, -1, "MPI_Init", 0),
                        (3500, 6500, 800, 0, "MPI_Recv", 0),
                        (7500, 8500, 8, -1, "MPI_Allreduce", 0),
                        (9500, 10500, -1, -1, "MPI_Finalize", 0)],
              t_init=1500, t_finalize=9500, offset_ns=offset1, host="h1", dropped=3, cost=60.0)


def test_merge_structure(tmp_path):
    two_ranks(tmp_path, offset1=(500, 500))
    t = merge_dir(tmp_path, "prog -x")
    validate(t)
    assert json.loads(json.dumps(t)) == t
    meta = [e for e in t["traceEvents"] if e["ph"] == "M"]
    assert meta == [{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "prog -x"}},
                    {"ph": "M", "name": "thread_name", "pid": 0, "tid": 0, "args": {"name": "rank 0"}},
                    {"ph": "M", "name": "thread_name", "pid": 0, "tid": 1, "args": {"name": "rank 1"}}]
    [phase] = [e for e in t["traceEvents"] if e.get("cat") == "phase"]
    assert phase == {"ph": "X", "cat": "phase", "name": "solve", "pid": 0, "tid": 0, "ts": 2.0,
                     "dur": 6.0}
    [send] = calls_of(t, 0, "MPI_Send")
    assert send["cat"] == "mpi" and (send["ts"], send["dur"]) == (3.0, 1.0)
    assert send["args"] == {"state": "overhead", "bytes": 800, "peer": 1}
    assert calls_of(t, 0, "MPI_Wait")[0]["args"] == {"state": "idle"}
    # rank 1's times are shifted onto rank 0's clock: its Recv spans 4..7 us
    [recv] = calls_of(t, 1, "MPI_Recv")
    assert (recv["ts"], recv["dur"]) == (4.0, 3.0)
    assert recv["args"] == {"state": "idle", "bytes": 800, "peer": 0}
    assert calls_of(t, 1, "MPI_Allreduce")[0]["args"] == {"state": "overhead", "bytes": 8}
    od = t["otherData"]
    assert od["hpceval_trace_version"] == 1 and od["nranks"] == 2 and od["command"] == "prog -x"
    assert od["hosts"] == ["h0", "h1"] and od["clock_offset_us"] == [0.0, 0.5]
    assert od["event_cost_ns"] == [40.0, 60.0] and od["events"] == [6, 4]
    assert od["dropped_events"] == [0, 3] and od["clock"] == "CLOCK_MONOTONIC aligned to rank 0"
    assert od["t0_unix"] == pytest.approx(1_700_000_000)
    assert t["displayTimeUnit"] == "ns"
    assert set(tracks(t)) == {0, 1}


def test_drift_is_interpolated(tmp_path):
    # rank 1's offset grows from 0 at MPI_Init (1.5 us) to 800 ns at MPI_Finalize (9.5 us)
    two_ranks(tmp_path, offset1=(0, 800))
    t = merge_dir(tmp_path, "p")
    [recv] = calls_of(t, 1, "MPI_Recv")
    assert recv["ts"] == pytest.approx(3.5 + 0.8 * (3.5 - 1.5) / 8, abs=1e-3)
    assert recv["ts"] + recv["dur"] == pytest.approx(6.5 + 0.8 * (6.5 - 1.5) / 8, abs=1e-3)


def test_nested_unmatched_and_unclosed_phases(tmp_path):
    write_raw(tmp_path, 0, 1, [(0, 1 * US, -1, -1, "MPI_Init", 0),
                               (2 * US, 2 * US, -1, -1, "outer", 1),
                               (3 * US, 3 * US, -1, -1, "inner", 1),
                               (4 * US, 4 * US, -1, -1, "stray", 2),   # never begun: ignored
                               (5 * US, 5 * US, -1, -1, "outer", 2),   # closes inner too
                               (6 * US, 6 * US, -1, -1, "tail", 1),    # never ended
                               (8 * US, 9 * US, -1, -1, "MPI_Finalize", 0)],
              phases=["outer", "inner", "stray", "tail"], t_finalize=8 * US)
    t = merge_dir(tmp_path, "p")
    validate(t)
    got = sorted((e["name"], e["ts"], e["dur"]) for e in t["traceEvents"] if e.get("cat") == "phase")
    assert got == [("inner", 3.0, 2.0), ("outer", 2.0, 3.0), ("tail", 6.0, 2.0)]
    [row] = summarize(t)
    assert row["window_us"] == pytest.approx(7.0) and row["mpi_pct"] == 0.0
    assert row["phase_pct"]["outer"] == pytest.approx(100 * 3 / 7)


def test_summary_percentages(tmp_path):
    two_ranks(tmp_path)
    rows = summarize(merge_dir(tmp_path, "p"))
    # rank 0: traced from 1 us (Init's end) to 9 us (Finalize): Send 1 us + Wait 2 us in MPI
    assert rows[0]["window_us"] == pytest.approx(8.0)
    assert rows[0]["mpi_pct"] == pytest.approx(100 * 3 / 8)
    assert rows[0]["idle_pct"] == pytest.approx(100 * 2 / 8)
    assert rows[0]["phase_pct"] == {"solve": pytest.approx(75.0)}


def test_merge_errors(tmp_path):
    with pytest.raises(NoTraceError, match="no rank wrote a trace"):
        merge_dir(tmp_path, "p")
    write_raw(tmp_path, 0, 3, [(0, 1, -1, -1, "MPI_Init", 0)])
    with pytest.raises(TraceError, match=r"ranks 1, 2 of 3 wrote no trace"):
        merge_dir(tmp_path, "p")
    write_raw(tmp_path, 1, 3, [(0, 1, -1, -1, "MPI_Init", 0)], job="00000000000000bb")
    with pytest.raises(TraceError, match="2 MPI jobs"):
        merge_dir(tmp_path, "p")
    bad = tmp_path / "b"
    f = write_raw(bad, 0, 1, [(0, 1, -1, -1, "MPI_Init", 0), (2, 3, -1, -1, "MPI_Send", 0)])
    f.write_bytes(f.read_bytes()[:-5])                        # truncated
    with pytest.raises(TraceError, match="broken raw trace.*bytes of events"):
        merge_dir(bad, "p")
    f.write_bytes(b"not json\n")
    with pytest.raises(TraceError, match="broken raw trace"):
        merge_dir(bad, "p")


def good():
    return {"traceEvents": [
        {"ph": "M", "name": "thread_name", "pid": 0, "tid": 0, "args": {"name": "rank 0"}},
        {"ph": "X", "cat": "phase", "name": "a", "pid": 0, "tid": 0, "ts": 0, "dur": 10},
        {"ph": "X", "cat": "mpi", "name": "MPI_Send", "pid": 0, "tid": 0, "ts": 2, "dur": 3},
        {"ph": "X", "cat": "mpi", "name": "MPI_Recv", "pid": 0, "tid": 0, "ts": 5, "dur": 5}]}


@pytest.mark.parametrize("change,message", [
    (lambda t: t["traceEvents"][2].update(dur=9), "overlaps 'a'"),        # 2..11 sticks out of a
    (lambda t: t["traceEvents"].pop(0), "no thread_name"),
    (lambda t: t["traceEvents"][3].update(dur=-1), "negative dur"),
    (lambda t: t["traceEvents"][3].update(ts="5"), "ts must be a number"),
    (lambda t: t["traceEvents"][3].update(ts=-1), "negative ts"),
    (lambda t: t["traceEvents"][3].update(tid=1.5), "tid must be an integer"),
    (lambda t: t.pop("traceEvents"), "traceEvents"),
    (lambda t: t["traceEvents"].append(7), "event 4"),
])
def test_validator_rejects(change, message):
    t = good()
    validate(t)
    change(t)
    with pytest.raises(TraceError, match=message) as exc:
        validate(t)
    assert "\n" not in str(exc.value)


def test_load(tmp_path):
    p = tmp_path / "t.json"
    p.write_text(json.dumps(good()))
    assert load(p) == good()
    p.write_text('{"traceEvents": [')
    with pytest.raises(TraceError, match=r"t.json: not JSON") as exc:
        load(p)
    assert "\n" not in str(exc.value)
    with pytest.raises(TraceError, match="cannot read"):
        load(tmp_path / "missing.json")
    t = good()
    t["traceEvents"][1]["dur"] = 3                     # the Send (2..5) now sticks out of a
    p.write_text(json.dumps(t))
    with pytest.raises(TraceError, match=r"t.json: track tid 0"):
        load(p)


def test_every_rank_written(tmp_path):
    from hpceval.trace.merge import every_rank_written
    assert not every_rank_written(tmp_path)
    header = b'{"format":"hpceval-trace","nranks":3}\n'
    (tmp_path / "rank-0.00ab.hpt").write_bytes(header)
    (tmp_path / "rank-2.00ab.hpt").write_bytes(header)
    (tmp_path / "rank-1.00ab.hpt.tmp").write_bytes(header)      # still being written
    assert not every_rank_written(tmp_path)
    (tmp_path / "rank-1.00ab.hpt").write_bytes(header)
    assert every_rank_written(tmp_path)
