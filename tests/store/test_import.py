"""Import of export files: round trip, duplicates, and rejection of bad files as a whole."""
import json
import re

import pytest

from hpceval.errors import UsageError
from hpceval.store import Store, import_runs, parse_export

FP = {"hash": "ab" * 32, "hostname": "<i>n1</i>", "cores": 2}


def make_db(path, n=2):
    s = Store(path)
    for i in range(n):
        rid = s.create_run("quick", [f"t{i}"], FP if i == 0 else {**FP, "hash": "cd" * 32}, "hpceval run", {"np": 2})
        s.add_launch(rid, {"benchmark": "pingpong", "label": "pingpong np=2", "command": "mpirun x",
                           "nranks": 2, "started": "2026-01-01T00:00:00+00:00", "elapsed_s": 1.0,
                           "exit_code": 0, "status": "ok", "message": None, "warnings": ["w"],
                           "meta": {"hosts": ["n1", "n1"]}},
                     [{"benchmark": "pingpong", "params": {"bytes": b, "ranks": "0-1"}, "metric": "latency",
                       "unit": "us", "statistic": "median", "better": "lower", "converged": b != 8,
                       "stats": {"n": 3, "min": 1.0, "median": 1.5 + i, "mean": 1.6, "max": 2.0 + i,
                                 "stddev": 0.1, "ci_low": 1.2, "ci_high": 1.8}} for b in (8, 64)])
        s.finish_run(rid, "ok")
    return s


def export(s):
    return json.loads(json.dumps([s.get_run(i) for i in s.run_ids()]))


def test_round_trip_equals_original(tmp_path):
    src = export(make_db(tmp_path / "a.sqlite"))
    dst = Store(tmp_path / "b.sqlite")
    added, skipped = import_runs(dst, parse_export(json.dumps(src)))
    assert added == [1, 2] and skipped == []
    assert export(dst) == src


def test_importing_twice_adds_nothing_and_fingerprints_are_stored_once(tmp_path):
    src = json.dumps(export(make_db(tmp_path / "a.sqlite")))
    dst = Store(tmp_path / "b.sqlite")
    import_runs(dst, parse_export(src))
    added, skipped = import_runs(dst, parse_export(src))
    assert added == [] and len(skipped) == 2
    assert len(dst.run_ids()) == 2
    assert dst.conn.execute("SELECT count(*) FROM fingerprints").fetchone()[0] == 2


@pytest.mark.parametrize("mangle, reason", [
    (lambda t: t[: len(t) // 2], "not valid JSON"),
    (lambda t: "", "empty file"),
    (lambda t: '{"hello": "world"}', "not an hpceval export"),
    (lambda t: t.replace('"median": 1.5', '"median": "fast"'), "not an hpceval export"),
    (lambda t: t.replace('"median": 1.5', '"median": NaN'), "non-finite number NaN"),
    (lambda t: t.replace('"export_version": 1', '"export_version": 7'), "export_version"),
])
def test_bad_files_are_rejected_whole(tmp_path, mangle, reason):
    text = json.dumps(export(make_db(tmp_path / "a.sqlite")))
    with pytest.raises(UsageError, match=reason) as exc:
        parse_export(mangle(text), "f.json")
    assert "\n" not in str(exc.value)


def test_failure_mid_import_changes_nothing(tmp_path):
    runs = export(make_db(tmp_path / "a.sqlite"))
    del runs[1]["records"][0]["stats"]["ci_low"]     # bypasses the schema: fails while writing
    dst = Store(tmp_path / "b.sqlite")
    with pytest.raises(KeyError):
        import_runs(dst, runs)
    assert dst.run_ids() == []
    assert dst.conn.execute("SELECT count(*) FROM fingerprints").fetchone()[0] == 0


def test_digit_only_uuid_prefix_resolves(tmp_path):
    s = make_db(tmp_path / "a.sqlite", n=1)
    runs = export(s)
    runs[0]["uuid"] = "51464341-0000-4000-8000-000000000000"
    dst = Store(tmp_path / "b.sqlite")
    import_runs(dst, runs)
    assert dst.resolve("51464341") == dst.resolve("1") == 1
    # a short number is an id or nothing: a mistyped id does not name a run by its uuid
    for ref in ("51", "5146434"):
        with pytest.raises(UsageError, match=f"no run '{ref}'"):
            dst.resolve(ref)
    assert dst.resolve("51464341-0") == 1                 # not all digits: a uuid prefix


# -- strict reading (#44): what json.loads lets through without a word ------------------------
@pytest.mark.parametrize("mangle, reason", [
    (lambda t: t.replace('"median": 1.5', '"median": 1.5, "median": 9.5', 1),
     "duplicate key 'median' in one object"),
    (lambda t: t.replace('"uuid": ', '"uuid": "0123456789", "uuid": ', 1),
     "duplicate key 'uuid' in one object"),
    (lambda t: t.replace('"ranks": "0-1"', '"ranks": "0-1", "ranks": "0-2"', 1),
     "duplicate key 'ranks' in one object"),
    (lambda t: json.dumps(json.loads(t)[0]), "the top level is one object, not a list of runs"),
    (lambda t: "7", "the top level is a number, not a list of runs"),
    (lambda t: json.dumps([json.loads(t)[0]] * 2), "runs [0] and [1] have the same uuid"),
    (lambda t: json.dumps(json.loads(t) + [json.loads(t)[1]]), "runs [1] and [2] have the same"),
    (lambda t: "\ufeff" + t, "Unexpected UTF-8 BOM"),
    (lambda t: t + "{}", "Extra data"),
    (lambda t: t.replace('"median": 1.5', '"median": -Infinity', 1), "non-finite number -Infinity"),
])
def test_strict_files_are_rejected_whole(tmp_path, mangle, reason):
    text = json.dumps(export(make_db(tmp_path / "a.sqlite")))
    with pytest.raises(UsageError, match=re.escape(reason)) as exc:
        parse_export(mangle(text), "f.json")
    assert "\n" not in str(exc.value) and str(exc.value).startswith("f.json: ")


def test_binaries_records_with_a_key_twice_are_refused_too():
    from hpceval.records import RecordError, parse_record
    with pytest.raises(RecordError, match="duplicate key 'type'"):
        parse_record('{"record_version": 1, "type": "meta", "type": "result"}')


@pytest.mark.parametrize("obj, found", [
    ({"records": [{"stats": {"median": 1.0}}, {"stats": {"median": float("inf")}}]},
     ("records[1].stats.median", float("inf"))),
    ([1.0, [2.0, float("-inf")]], ("[1][1]", float("-inf"))),
    (float("nan"), None),
    ({"a": 1, "b": "inf", "c": [None, True]}, None),
])
def test_first_nonfinite_names_where(obj, found):
    from hpceval.strictjson import first_nonfinite
    got = first_nonfinite(obj)
    if obj != obj:                                 # nan: found, at the top level
        assert got[0] == "top level" and got[1] != got[1]
    else:
        assert got == found
