"""Schema version 3: a run stores its driver's PID and host; a run left 'running' by a driver
that no longer exists is marked 'abandoned' by the next process that opens the database."""
import os
import socket
import sqlite3
import subprocess

from hpceval.store import Store
from hpceval.store.schema import MIGRATIONS, SCHEMA_VERSION

FP = {"hash": "abc123abc123abc1", "hostname": "n1", "cores": 2}


def _dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def _version_2(path):
    c = sqlite3.connect(path)
    for v in (1, 2):
        c.executescript(MIGRATIONS[v])
    c.execute("INSERT INTO schema_version VALUES (2)")
    c.execute("INSERT INTO fingerprints (hash, data, created) VALUES ('abc', '{}', 'x')")
    c.execute("INSERT INTO runs (uuid, started, suite, status, fingerprint_id) "
              "VALUES ('u-1', 'x', 'quick', 'running', 1)")
    c.execute("INSERT INTO launches (run_id, benchmark, label, command, nranks, started, status)"
              " VALUES (1, 'pingpong', 'pingpong', 'mpirun', 2, 'x', 'ok')")
    c.execute("INSERT INTO records (run_id, launch_id, benchmark, params, metric, unit, statistic,"
              " better, n, median, converged) VALUES (1, 1, 'pingpong', '{}', 'latency', 'us',"
              " 'median', 'lower', 1, 0.2, 1)")
    c.commit()
    c.close()


def test_version_2_database_is_migrated_keeping_everything(tmp_path):
    path = tmp_path / "v2.sqlite"
    _version_2(path)
    s = Store(path)
    assert s.conn.execute("SELECT version FROM schema_version").fetchone()[0] == SCHEMA_VERSION
    assert s.conn.execute("PRAGMA foreign_key_check").fetchall() == []
    run = s.get_run(1)
    # a run of an older driver has no PID: it cannot be judged, so it stays as it was
    assert run["status"] == "running" and run["records"][0]["stats"]["median"] == 0.2
    assert len(run["launches"]) == 1
    s.finish_run(1, "abandoned")                       # the new status is allowed
    assert s.get_run(1)["status"] == "abandoned"


def _running(s, pid, host):
    rid = s.create_run("quick", [], FP, "", {})
    s.conn.execute("UPDATE runs SET driver_pid = ?, driver_host = ? WHERE id = ?", (pid, host, rid))
    return rid


def test_only_runs_of_dead_drivers_on_this_host_are_abandoned(tmp_path):
    path = tmp_path / "r.sqlite"
    s = Store(path)
    dead = _running(s, _dead_pid(), socket.gethostname())
    alive = _running(s, os.getpid(), socket.gethostname())
    elsewhere = _running(s, _dead_pid(), "another-host")
    done = _running(s, _dead_pid(), socket.gethostname())
    s.finish_run(done, "ok")
    s.close()
    status = {r["id"]: (r["status"], r["finished"]) for r in Store(path).list_runs()}
    assert status[dead][0] == "abandoned" and status[dead][1]
    assert status[alive][0] == "running"
    assert status[elsewhere][0] == "running"
    assert status[done][0] == "ok"


def test_a_new_run_records_its_driver(tmp_path):
    s = Store(tmp_path / "r.sqlite")
    rid = s.create_run("quick", [], FP, "", {})
    row = s.conn.execute("SELECT driver_pid, driver_host FROM runs WHERE id = ?", (rid,)).fetchone()
    assert tuple(row) == (os.getpid(), socket.gethostname())
