"""Schema version 4: runs of Slurm jobs (queued, incomplete, cancelled, timeout; job id and
Slurm's reason); a version-2 database is migrated in place through version 3 (the driver's PID
and host), launches and records kept."""
import sqlite3

import pytest

from hpceval.store import Store
from hpceval.store.schema import MIGRATIONS

FP = {"hash": "abc123abc123abc1", "hostname": "n1", "cores": 2}
LAUNCH = {"benchmark": "pingpong", "label": "pingpong np=2", "command": "srun x",
          "nranks": 2, "started": "2026-01-01T00:00:00+00:00", "status": "ok"}


def test_version_2_database_is_migrated(tmp_path):
    path = tmp_path / "v2.sqlite"
    c = sqlite3.connect(path)
    c.executescript(MIGRATIONS[1] + MIGRATIONS[2])
    c.execute("INSERT INTO schema_version VALUES (2)")
    c.execute("INSERT INTO fingerprints (hash, data, created) VALUES ('abc', '{}', 'x')")
    c.execute("INSERT INTO runs (uuid, started, suite, status, fingerprint_id) "
              "VALUES ('u-1', 'x', 'quick', 'ok', 1)")
    c.execute("INSERT INTO launches (run_id, benchmark, label, command, nranks, started, status)"
              " VALUES (1, 'pingpong', 'l', 'mpirun', 2, 'x', 'ok')")
    c.commit()
    c.close()
    s = Store(path)
    run = s.get_run(1)
    assert run["status"] == "ok" and run["launches"][0]["command"] == "mpirun"
    assert s.conn.execute("PRAGMA foreign_key_check").fetchall() == []
    assert s.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_job_states(tmp_path):
    s = Store(tmp_path / "a.sqlite")
    rid = s.create_run("quick", [], FP, "", {"slurm": {"script": "#!/bin/sh"}}, status="queued")
    s.set_job(rid, "42")
    s.start_submitted_run(rid, {**FP, "hash": "other"}, "hpceval run quick",
                          {"np": None, "slurm": {"job_id": "42", "nodelist": "node[1-2]"}})
    run = s.get_run(rid)
    assert run["status"] == "running" and run["fingerprint"]["hash"] == "other"
    assert run["settings"]["slurm"] == {"script": "#!/bin/sh", "job_id": "42",
                                        "nodelist": "node[1-2]"}
    s.add_launch(rid, LAUNCH, [])
    s.end_job_run(rid, "cancelled", "cancelled by root")
    listed = s.list_runs()[0]
    assert (listed["status"], listed["job_id"], listed["reason"]) == \
        ("cancelled", "42", "cancelled by root")
    with pytest.raises(sqlite3.IntegrityError):
        s.end_job_run(rid, "exploded", None)
