import json

import pytest

from hpceval.records import RecordError, parse_record

STATS = {"n": 5, "min": 1.0, "median": 1.2, "mean": 1.3, "max": 2.0, "stddev": 0.4,
         "ci_low": 1.0, "ci_high": 2.0}
RESULT = {"record_version": 1, "type": "result", "benchmark": "pingpong",
          "params": {"bytes": 8, "ranks": "0-1"}, "metric": "latency", "unit": "us",
          "statistic": "median", "better": "lower", "stats": STATS, "converged": True,
          "check": "ok"}


def test_valid_result():
    assert parse_record(json.dumps(RESULT))["metric"] == "latency"


@pytest.mark.parametrize("mutate,message", [
    (lambda r: r.update(record_version=2), "unknown record_version 2"),
    (lambda r: r.pop("stats"), "'stats' is a required property"),
    (lambda r: r.update(statistic="p99"), "is not one of"),
    (lambda r: r.update(check="bad"), "'ok' was expected"),
    (lambda r: r["stats"].update(n=0), "less than the minimum"),
    (lambda r: r["stats"].update(median=5.0), "inconsistent stats"),
    (lambda r: r.update(params={"bytes": [1, 2]}), "params"),
])
def test_invalid_results(mutate, message):
    rec = json.loads(json.dumps(RESULT))
    mutate(rec)
    with pytest.raises(RecordError, match=message):
        parse_record(json.dumps(rec))


@pytest.mark.parametrize("line,message", [
    ("not json", "not JSON"), ("[1, 2]", "not a JSON object"),
    ('{"record_version": 1, "type": "error", "benchmark": "x"}', "'message' is a required"),
    ('{"record_version": 1, "type": "result", "benchmark": "x", "stats": {"min": NaN}}', "non-finite number NaN"),
    # json reads a literal beyond the double range as inf, silently
    ('{"record_version": 1, "type": "end", "benchmark": "x", "status": "ok", "elapsed_s": 1e999}',
     "non-finite number 1e999"),
    ('{"record_version": 1, "type": "end", "benchmark": "x", "status": "ok", "elapsed_s": -2e400}',
     "non-finite number -2e400"),
])
def test_invalid_lines(line, message):
    with pytest.raises(RecordError, match=message):
        parse_record(line)


@pytest.mark.parametrize("where", [
    lambda r: r.update(err_l2=None),                    # an extra key: where NaN used to go
    lambda r: r.update(phases={"x": {"per_rank": [1.0, None]}}),
])
def test_null_is_refused(where):
    """A null stands where a writer had no finite number (older binaries wrote NaN as null)."""
    rec = json.loads(json.dumps(RESULT))
    where(rec)
    with pytest.raises(RecordError, match="None"):
        parse_record(json.dumps(rec))
