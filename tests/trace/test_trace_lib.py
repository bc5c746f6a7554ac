"""The PMPI library (csrc/trace) itself, preloaded under mpirun as a user would: what each rank
records in its raw file, that an untraced run writes nothing, a full buffer drops events."""
from __future__ import annotations

import numpy as np

from hpceval.trace.merge import KIND_CALL, KIND_PHASE_BEGIN, KIND_PHASE_END, read_raw
from trace_helpers import FOREIGN, LIB, built, mpirun


def traced(tmp_path, nranks, *args, extra=None):
    built()
    out = tmp_path / "raw"
    p = mpirun(nranks, [FOREIGN, *args],
               env={"LD_PRELOAD": str(LIB), "HPCEVAL_TRACE_DIR": str(out), **(extra or {})})
    return p, out


def test_foreign_program_calls_and_phases(tmp_path):
    p, out = traced(tmp_path, 4, "3")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "trace_foreign: 4 ranks, 3 rounds, ok\n"
    files = sorted(out.glob("rank-*.hpt"))
    assert len(files) == 4 and not list(out.glob("*.tmp"))
    jobs = set()
    for f in files:
        h, ev = read_raw(f)
        r = h["rank"]
        jobs.add(h["job"])
        assert h["nranks"] == 4 and f.name.startswith(f"rank-{r}.")
        assert h["dropped"] == 0 and h["events"] == len(ev)
        # one host: the clocks are the same clock, the offset applied is exactly 0
        assert h["same_host_as_rank0"] and h["offset_ns"] == [0, 0]
        assert 0 < h["event_cost_ns"] < 10_000
        calls = ev[ev["kind"] == KIND_CALL]
        names = [h["calls"][i] for i in calls["id"]]
        # exactly what the program calls: 3 rounds of one Send, one Recv and one Allreduce,
        # one more Allreduce for the check, and Init/Finalize
        assert sorted(names) == sorted(["MPI_Init"] + ["MPI_Send", "MPI_Recv", "MPI_Allreduce"] * 3
                                       + ["MPI_Allreduce", "MPI_Finalize"])
        sends = calls[[n == "MPI_Send" for n in names]]
        recvs = calls[[n == "MPI_Recv" for n in names]]
        assert set(sends["peer"]) == {(r + 1) % 4} and set(recvs["peer"]) == {(r + 3) % 4}
        assert set(sends["bytes"]) == {4} and set(recvs["bytes"]) == {4}   # one MPI_INT
        assert (calls["t_end"] >= calls["t_begin"]).all()
        # recorded in time order; everything between MPI_Init's end and MPI_Finalize
        assert (np.diff(ev["t_begin"].astype(np.int64)) >= 0).all()
        inner = ev[1:-1]
        assert (inner["t_begin"] >= h["t_init_ns"]).all()
        assert (inner["t_end"] <= h["t_finalize_ns"]).all()
        marks = ev[ev["kind"] != KIND_CALL]
        assert h["phases"] == ["round", "exchange", "sum"]
        for k in (KIND_PHASE_BEGIN, KIND_PHASE_END):
            ids = marks["id"][marks["kind"] == k]
            assert sorted(ids.tolist()) == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert len(jobs) == 1


def test_untraced_run_writes_nothing_and_output_is_unchanged(tmp_path):
    built()
    plain = mpirun(2, [FOREIGN, "2"], cwd=tmp_path)
    preloaded = mpirun(2, [FOREIGN, "2"], env={"LD_PRELOAD": str(LIB)}, cwd=tmp_path)
    assert plain.returncode == preloaded.returncode == 0
    assert plain.stdout == preloaded.stdout == "trace_foreign: 2 ranks, 2 rounds, ok\n"
    assert list(tmp_path.iterdir()) == []


def test_full_buffer_drops_events_without_harm(tmp_path):
    p, out = traced(tmp_path, 2, "50", extra={"HPCEVAL_TRACE_MAX_EVENTS": "10"})
    assert p.returncode == 0 and p.stdout == "trace_foreign: 2 ranks, 50 rounds, ok\n"
    for f in out.glob("rank-*.hpt"):
        h, ev = read_raw(f)
        # 50 rounds: 3 calls and 6 phase marks each, plus Init, the check, Finalize
        assert h["events"] == len(ev) == 10 and h["capacity"] == 10
        assert h["dropped"] == 50 * 9 + 3 - 10


def test_exit_status_passes_through(tmp_path):
    p, out = traced(tmp_path, 2, "1", "5")
    assert p.returncode == 5 and p.stdout == "trace_foreign: 2 ranks, 1 rounds, ok\n"
    assert len(list(out.glob("rank-*.hpt"))) == 2    # written before MPI_Finalize returned


def test_nonblocking_and_one_sided_calls(tmp_path):
    """hpceval-halo (cartesian communicator, Isend/Irecv/Waitall, Put between Win_fences):
    peers come out as MPI_COMM_WORLD ranks, through the communicator's and window's groups."""
    from hpceval.trace import merge_dir, validate
    from helpers import BIN
    built()
    out = tmp_path / "raw"
    p = mpirun(4, [BIN / "hpceval-halo", "--tile", "16", "--widths", "1", "--methods", "pack,put",
                   "--budget", "0.02", "--min-reps", "3", "--max-reps", "4", "--warmup", "1"],
               env={"LD_PRELOAD": str(LIB), "HPCEVAL_TRACE_DIR": str(out)})
    assert p.returncode == 0, p.stderr
    t = merge_dir(out, "halo")
    validate(t)
    for r in range(4):
        mine = [e for e in t["traceEvents"] if e.get("cat") == "mpi" and e["tid"] == r]
        by = {n: [e for e in mine if e["name"] == n]
              for n in ("MPI_Isend", "MPI_Irecv", "MPI_Put", "MPI_Win_fence", "MPI_Waitall")}
        assert all(by.values()), {n: len(v) for n, v in by.items()}
        assert len(by["MPI_Isend"]) == len(by["MPI_Irecv"])
        for name in ("MPI_Isend", "MPI_Irecv", "MPI_Put"):
            # a 2x2 grid: every neighbour is another rank; 16 doubles per face of a 16 tile
            assert {e["args"]["peer"] for e in by[name]} <= {0, 1, 2, 3} - {r}
            assert {e["args"]["bytes"] for e in by[name]} <= {16 * 8, 8}
            assert by[name][0]["args"]["state"] == "overhead"
        assert {e["args"]["state"] for e in by["MPI_Win_fence"] + by["MPI_Waitall"]} == {"idle"}
