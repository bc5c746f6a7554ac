"""Schema version 2: a record's extra keys and a launch's trace are stored, exported and imported;
a version-1 database is migrated in place without losing anything."""
import json
import sqlite3

from hpceval.store import Store
from hpceval.store.importer import import_runs, parse_export
from hpceval.store.schema import MIGRATIONS, SCHEMA_VERSION

FP = {"hash": "abc123abc123abc1", "hostname": "n1", "cores": 2}
LAUNCH = {"benchmark": "barotropic", "label": "barotropic np=2", "command": "mpirun x",
          "nranks": 2, "started": "2026-01-01T00:00:00+00:00", "status": "ok"}
TRACE = {"traceEvents": [{"ph": "M", "name": "thread_name", "pid": 0, "tid": 0,
                          "args": {"name": "rank 0"}},
                         {"ph": "X", "cat": "mpi", "name": "MPI_Allreduce", "pid": 0, "tid": 0,
                          "ts": 1.5, "dur": 2.0, "args": {"state": "overhead"}}],
         "otherData": {"nranks": 1}}


def result(median=3.0, **extra):
    # as the runner receives it from a binary: extra keys at the top level
    return {"record_version": 1, "type": "result", "benchmark": "barotropic",
            "params": {"P": 1, "Q": 2}, "metric": "iteration_time", "unit": "us",
            "statistic": "median", "better": "lower", "converged": True, "check": "ok",
            "stats": {k: median for k in ("min", "median", "mean", "max", "ci_low", "ci_high")}
            | {"n": 3, "stddev": 0.0}, **extra}


def test_extra_and_trace_round_trip(tmp_path):
    s = Store(tmp_path / "a.sqlite")
    rid = s.create_run("pop", [], FP, "", {})
    phases = {"compute": {"kind": "compute", "per_rank": [1.0, 1.5]}}
    s.add_launch(rid, LAUNCH, [result(phases=phases, iterations=40), result(2.0)], trace=TRACE)
    run = s.get_run(rid)
    first, second = run["records"]
    assert first["extra"] == {"check": "ok", "phases": phases, "iterations": 40}
    assert second["extra"] == {"check": "ok"}
    assert run["traces"] == [{"benchmark": "barotropic", "label": "barotropic np=2",
                              "trace": TRACE}]
    # export -> import into another database keeps both
    runs = parse_export(json.dumps([run]))
    other = Store(tmp_path / "b.sqlite")
    (new,), _ = import_runs(other, runs)
    again = other.get_run(new)
    assert again["records"][0]["extra"] == first["extra"] and again["traces"] == run["traces"]


def test_version_1_database_is_migrated(tmp_path):
    path = tmp_path / "old.sqlite"
    c = sqlite3.connect(path)
    c.executescript(MIGRATIONS[1])
    c.execute("INSERT INTO schema_version VALUES (1)")
    c.execute("INSERT INTO fingerprints (hash, data, created) VALUES ('abc', '{}', 'x')")
    c.execute("INSERT INTO runs (uuid, started, suite, status, fingerprint_id) "
              "VALUES ('u-1234567', 'x', 'quick', 'ok', 1)")
    c.execute("INSERT INTO records (run_id, benchmark, params, metric, unit, statistic, better, n,"
              " median, converged) VALUES (1, 'pingpong', '{}', 'latency', 'us', 'median',"
              " 'lower', 1, 0.2, 1)")
    c.commit()
    c.close()
    s = Store(path)
    assert s.conn.execute("SELECT version FROM schema_version").fetchone()[0] == SCHEMA_VERSION
    run = s.get_run(1)
    assert run["records"][0]["stats"]["median"] == 0.2 and "extra" not in run["records"][0]
    assert run["traces"] == []


def test_traces_left_out_on_request(tmp_path):
    s = Store(tmp_path / "a.sqlite")
    rid = s.create_run("pop", [], FP, "", {})
    s.add_launch(rid, LAUNCH, [result()], trace=TRACE)
    assert s.get_run(rid, traces=False)["traces"] == []
    assert s.get_run(rid)["traces"][0]["trace"] == TRACE
