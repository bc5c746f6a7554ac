"""Schema version 5: a point's samples are stored, its p90, p99 and coefficient of variation
computed from them when stored (p50 is the median), exported (JSON and CSV) and imported; a
version-4 database is migrated (its points keep no samples: cv from stddev / mean, no p90/p99)."""
import json
import sqlite3

import numpy as np
import pytest

from hpceval.records import RecordError, parse_record
from hpceval.store import Store
from hpceval.store.importer import import_runs, parse_export
from hpceval.store.schema import MIGRATIONS

FP = {"hash": "abc123abc123abc1", "hostname": "n1", "cores": 2}
LAUNCH = {"benchmark": "pingpong", "label": "pingpong np=2", "command": "mpirun x",
          "nranks": 2, "started": "2026-01-01T00:00:00+00:00", "status": "ok"}
# 1, 2, ..., 10 in a shuffled order: p90 = 9.1 and p99 = 9.91 (linear interpolation), the
# median 5.5, the mean 5.5 and the sample standard deviation sqrt(55/6)
SAMPLES = [7.0, 2.0, 9.0, 4.0, 10.0, 1.0, 6.0, 3.0, 8.0, 5.0]
SD = (55 / 6) ** 0.5


def result(samples=SAMPLES, **params):
    x = np.asarray(samples)
    return {"record_version": 1, "type": "result", "benchmark": "pingpong",
            "params": params or {"bytes": 8}, "metric": "latency", "unit": "us",
            "statistic": "median", "better": "lower", "converged": True, "check": "ok",
            "stats": {"n": len(x), "min": x.min(), "median": float(np.median(x)),
                      "mean": x.mean(), "max": x.max(), "stddev": x.std(ddof=1),
                      "ci_low": 2.0, "ci_high": 9.0},
            "samples": list(samples)}


def stored(tmp_path, *records):
    s = Store(tmp_path / "a.sqlite")
    rid = s.create_run("quick", [], FP, "", {})
    s.add_launch(rid, LAUNCH, list(records))
    return s, rid


def test_percentiles_computed_when_stored(tmp_path):
    s, rid = stored(tmp_path, result())
    [r] = s.get_run(rid, samples=True)["records"]
    st = r["stats"]
    assert st["p50"] == st["median"] == 5.5
    assert st["p90"] == pytest.approx(9.1, abs=1e-12)
    assert st["p99"] == pytest.approx(9.91, abs=1e-12)
    assert st["cv"] == pytest.approx(SD / 5.5, rel=1e-12)
    assert r["samples"] == SAMPLES                    # in the order taken, exactly
    assert "samples" not in (r.get("extra") or {})
    [r] = s.get_run(rid)["records"]                   # the samples only when asked for
    assert "samples" not in r and r["stats"]["p90"] == pytest.approx(9.1)


def test_a_version_4_database_is_migrated(tmp_path):
    path = tmp_path / "v4.sqlite"
    c = sqlite3.connect(path)
    c.executescript(";".join(MIGRATIONS[v] for v in (1, 2, 3, 4)))
    c.execute("INSERT INTO schema_version VALUES (4)")
    c.execute("INSERT INTO fingerprints (hash, data, created) VALUES ('abc', '{}', 'x')")
    c.execute("INSERT INTO runs (uuid, started, suite, status, fingerprint_id) "
              "VALUES ('u-1', 'x', 'quick', 'ok', 1)")
    c.execute("INSERT INTO records (run_id, benchmark, params, metric, unit, statistic, better, n,"
              " min, median, mean, max, stddev, ci_low, ci_high, converged) VALUES (1, 'pingpong',"
              " '{}', 'latency', 'us', 'median', 'lower', 10, 1, 5.5, 5.5, 10, 2.2, 2, 9, 1)")
    c.commit()
    c.close()
    [r] = Store(path).get_run(1, samples=True)["records"]
    assert r["stats"]["cv"] == pytest.approx(0.4) and r["stats"]["p50"] == 5.5
    assert "p90" not in r["stats"] and "p99" not in r["stats"] and "samples" not in r


def test_samples_are_checked_when_read_from_a_binary():
    rec = parse_record(json.dumps(result()))
    assert rec["samples"] == SAMPLES
    for bad in ([], [1.0, "2"], [True], {"a": 1}, None):
        with pytest.raises(RecordError, match="at samples"):
            parse_record(json.dumps({**result(), "samples": bad}))


def test_export_import_keeps_samples_and_percentiles(tmp_path):
    s, rid = stored(tmp_path, result(), result(bytes=16))
    run = s.get_run(rid, samples=True)
    text = json.dumps([run])
    other = Store(tmp_path / "b.sqlite")
    [new], _ = import_runs(other, parse_export(text))
    again = other.get_run(new, samples=True)
    assert again["records"] == run["records"]
    # a point's samples must be its own: more than n, or one outside [min, max], is refused
    for mangle, why in ((lambda r: r["samples"].append(5.0), "11 samples for n = 10"),
                        (lambda r: r["samples"].__setitem__(0, 11.0), "a sample outside"),
                        (lambda r: r["stats"].update(p90=9.95), "p90 and p99 not in order")):
        bad = json.loads(text)
        mangle(bad[0]["records"][0])
        bad[0]["uuid"] = "ffffeeee-0000-1111-2222-333344445555"
        with pytest.raises(Exception, match=why):
            parse_export(json.dumps(bad))
