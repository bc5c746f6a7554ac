"""Validate the JSON Lines records that benchmark binaries emit (docs/records.md)."""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any, Dict, Optional

from hpceval import strictjson

RECORD_VERSION = 1


class RecordError(ValueError):
    """A line that is not a valid record; the message says why in one line."""


@lru_cache(maxsize=None)
def _validator(name: str = "record-1.json"):
    # jsonschema is imported when a document is first checked: it is a fifth of the CLI's
    # start-up, which commands that check nothing (a refusal, `runs`, `export`) need not pay.
    import jsonschema
    schema = json.loads(resources.files("hpceval").joinpath(f"schemas/{name}").read_text())
    return jsonschema.Draft202012Validator(schema)


def schema_error(instance: Any, name: str = "record-1.json") -> Optional[Any]:
    """The most relevant jsonschema error of `instance` against schemas/`name`, or None."""
    from jsonschema.exceptions import best_match
    return best_match(_validator(name).iter_errors(instance))


def parse_record(line: str) -> Dict[str, Any]:
    """One output line -> a validated record, or RecordError. Every number must be finite:
    NaN, Infinity and overflowing literals are refused here, nulls (where older binaries put
    a non-finite number) by the schema."""
    try:
        rec = strictjson.loads(line)
    except ValueError as exc:
        raise RecordError(f"not JSON ({getattr(exc, 'msg', exc)}): {line[:80]!r}") from None
    if not isinstance(rec, dict):
        raise RecordError(f"not a JSON object: {line[:80]!r}")
    if rec.get("record_version") != RECORD_VERSION:
        raise RecordError(f"unknown record_version {rec.get('record_version')!r} (expected {RECORD_VERSION})")
    # A record's samples (up to 1000 numbers) are checked here: the schema's check of every
    # number cost 30 ms a record, the rest of the record 1 ms.
    if "samples" in rec:
        samples = rec.pop("samples")
        err = samples_error(samples) or schema_error(rec)
        rec["samples"] = samples
    else:
        err = schema_error(rec)
    if err is not None:
        where = "/".join(str(p) for p in err.absolute_path) or "record"
        raise RecordError(f"invalid {rec.get('type', '?')} record at {where}: {err.message}")
    if rec["type"] == "result" and not stats_in_order(rec["stats"]):
        raise RecordError(f"inconsistent stats for {rec['benchmark']} {rec['metric']}: {rec['stats']}")
    return rec


class _SamplesError:
    """A refusal of a record's samples, shaped as the jsonschema error parse_record reports."""
    absolute_path = ("samples",)

    def __init__(self, message: str):
        self.message = message


def samples_error(samples: Any) -> Optional[_SamplesError]:
    """What is wrong with a record's `samples` (record-1.json), or None: a non-empty list of
    numbers (strictjson has already refused NaN, Infinity and overflowing literals)."""
    if not isinstance(samples, list) or not samples:
        return _SamplesError("not a non-empty list of numbers")
    if not all(type(x) in (int, float) for x in samples):
        return _SamplesError("holds something that is not a number")
    return None


def stats_in_order(s: Dict[str, Any]) -> bool:
    """min <= median <= max and min <= mean <= max (up to the mean's rounding)."""
    tol = 1e-9 * max(abs(s["max"]), abs(s["min"]), 1e-300)
    return s["min"] <= s["median"] <= s["max"] and s["min"] - tol <= s["mean"] <= s["max"] + tol
