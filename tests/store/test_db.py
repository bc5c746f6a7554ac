import json
import multiprocessing
import sqlite3

import pytest

from hpceval.errors import UsageError
from hpceval.store import SCHEMA_VERSION, Store

FP = {"hash": "abc", "hostname": "n1", "cores": 2}


def launch(label="pingpong", status="ok"):
    return {"benchmark": "pingpong", "label": label, "command": "mpirun -np 2 x", "nranks": 2,
            "started": "2026-01-01T00:00:00+00:00", "elapsed_s": 1.0, "exit_code": 0,
            "status": status, "message": None, "warnings": [], "meta": {"hosts": ["n1", "n1"]}}


def record(size, median=1.0):
    return {"benchmark": "pingpong", "params": {"bytes": size}, "metric": "latency", "unit": "us",
            "statistic": "median", "better": "lower", "converged": True,
            "stats": {"n": 3, "min": median, "median": median, "mean": median, "max": median,
                      "stddev": 0.0, "ci_low": median, "ci_high": median}}


def test_round_trip(tmp_path):
    s = Store(tmp_path / "r.sqlite")
    rid = s.create_run("quick", ["a", "<b>"], FP, "hpceval run quick", {"np": 2})
    s.add_launch(rid, launch(), [record(8, 0.5), record(16, 0.6)])
    s.finish_run(rid, "ok")
    run = s.get_run(rid)
    assert run["status"] == "ok" and run["tags"] == ["a", "<b>"] and run["fingerprint"] == FP
    assert [r["params"]["bytes"] for r in run["records"]] == [8, 16]
    assert run["records"][0]["stats"]["median"] == 0.5
    assert run["launches"][0]["meta"] == {"hosts": ["n1", "n1"]}
    assert s.resolve("latest") == rid == s.resolve(run["uuid"][:8]) == s.resolve(str(rid))
    # 12 digits: never a uuid prefix (the 9th character is '-'), so the test is not flaky
    with pytest.raises(UsageError, match="no run '999999999999'"):
        s.resolve("999999999999")


def test_fingerprint_stored_once(tmp_path):
    s = Store(tmp_path / "r.sqlite")
    for _ in range(3):
        s.create_run("quick", [], FP, "", {})
    assert s.conn.execute("SELECT count(*) FROM fingerprints").fetchone()[0] == 1
    assert s.conn.execute("SELECT version FROM schema_version").fetchone()[0] == SCHEMA_VERSION


def test_failed_launch_keeps_earlier_records(tmp_path):
    s = Store(tmp_path / "r.sqlite")
    rid = s.create_run("quick", [], FP, "", {})
    s.add_launch(rid, launch(), [record(8)])
    s.add_launch(rid, launch("stream", status="timeout"), [])
    s.finish_run(rid, "failed")
    run = Store(tmp_path / "r.sqlite").get_run(rid)
    assert run["status"] == "failed" and len(run["records"]) == 1
    assert [l["status"] for l in run["launches"]] == ["ok", "timeout"]


def test_launch_is_atomic(tmp_path):
    s = Store(tmp_path / "r.sqlite")
    rid = s.create_run("quick", [], FP, "", {})
    bad = record(8)
    del bad["stats"]["ci_low"]
    with pytest.raises(KeyError):
        s.add_launch(rid, launch(), [record(4), bad])
    assert s.get_run(rid)["records"] == [] and s.get_run(rid)["launches"] == []


def _writer(path, n, tag):
    s = Store(path)
    rid = s.create_run("quick", [tag], {**FP, "hash": tag}, "", {})
    for i in range(n):
        s.add_launch(rid, launch(f"{tag}{i}"), [record(i), record(i + 1)])
    s.finish_run(rid, "ok")


def test_concurrent_writers_lose_nothing(tmp_path):
    path = tmp_path / "r.sqlite"
    procs = [multiprocessing.Process(target=_writer, args=(path, 40, f"w{k}")) for k in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    s = Store(path)
    assert len(s.run_ids()) == 4
    assert s.conn.execute("SELECT count(*) FROM records").fetchone()[0] == 4 * 40 * 2
    assert all(r["status"] == "ok" for r in s.list_runs())


def test_not_a_database(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(UsageError, match="file is not a database"):
        Store(bad)
    other = tmp_path / "other.sqlite"
    c = sqlite3.connect(other)
    c.execute("CREATE TABLE t (x)")
    c.commit()
    c.close()
    with pytest.raises(UsageError, match="not an hpceval database"):
        Store(other)


def test_newer_schema_refused(tmp_path):
    path = tmp_path / "r.sqlite"
    Store(path).close()
    c = sqlite3.connect(path)
    c.execute("UPDATE schema_version SET version = 99")
    c.commit()
    c.close()
    with pytest.raises(UsageError, match="schema version 99"):
        Store(path)
