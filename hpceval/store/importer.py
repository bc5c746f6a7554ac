"""Import another machine's `hpceval export --format json` output (docs/export.md).

The file is checked whole against the export schema before anything is written, then every new
run goes in one transaction: a corrupt, truncated or foreign file changes nothing. Runs are
identified by uuid, so importing the same file twice adds nothing the second time; fingerprints
are stored once per hash.
"""
from __future__ import annotations

import json
import math
from datetime import datetime
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from hpceval import strictjson
from hpceval.catalog import BENCHMARKS
from hpceval.errors import UsageError
from hpceval.infiles import read_regular
from hpceval.records import schema_error, stats_in_order
from hpceval.store.db import Store, insert_records, insert_trace
from hpceval.trace.chrome import TraceError, check_ranks, validate


def _where(err) -> str:
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)
    return path.lstrip(".") or "top level"


def parse_export(text: str, name: str = "input") -> List[Dict[str, Any]]:
    """The runs of an export file, or UsageError with a one-line reason."""
    if not text.strip():
        raise UsageError(f"{name}: empty file, not an hpceval export")
    try:
        runs = strictjson.loads(text)
    except strictjson.OutOfRange as exc:
        raise UsageError(f"{name}: {exc}; an hpceval export holds finite numbers only") from None
    except strictjson.DuplicateKey as exc:
        raise UsageError(f"{name}: {exc}, so which value is meant is unknown; not an hpceval "
                         "export") from None
    except RecursionError:
        raise UsageError(f"{name}: nested too deeply; not an hpceval export") from None
    except ValueError as exc:
        # A cut-off file fails here too ("Expecting ... line N"): say so in one line.
        raise UsageError(f"{name}: not valid JSON ({str(exc).splitlines()[0]}); "
                         "truncated or not an hpceval export") from None
    if not isinstance(runs, list):
        raise UsageError(f"{name}: not an hpceval export version 1: the top level is "
                         f"{_JSON_TYPES.get(type(runs), 'a value')}, not a list of runs "
                         "(what 'hpceval export' writes)")
    try:
        err = schema_error(runs, "export-1.json")
    except RecursionError:                 # parseable, but deeper than any export
        raise UsageError(f"{name}: nested too deeply; not an hpceval export") from None
    if err is not None:
        msg = err.message if len(err.message) < 160 else err.message[:157] + "..."
        raise UsageError(f"{name}: not an hpceval export version 1: at {_where(err)}: {msg}")
    _check_unique(runs, name)
    for i, run in enumerate(runs):
        problem = run_problem(run)
        if problem:
            raise UsageError(f"{name}: run [{i}] {run['uuid'][:36]}: {problem}; nothing imported")
    return runs


# The top level of a file that is not an export, as the refusal names it.
_JSON_TYPES = {dict: "one object", str: "a string", int: "a number", float: "a number",
               bool: "true or false", type(None): "null"}


def _check_unique(runs: List[Dict[str, Any]], name: str) -> None:
    """A uuid names one run: a file holding two runs of one uuid is two different runs under
    one name (imported, the second would be skipped as 'already present' without a word)."""
    first: Dict[str, int] = {}
    for i, run in enumerate(runs):
        j = first.setdefault(run["uuid"], i)
        if j != i:
            raise UsageError(f"{name}: runs [{j}] and [{i}] have the same uuid {run['uuid']}; "
                             "nothing imported")


# Units whose values are durations or rates: a negative one is no measurement.
_TIME_UNITS = {"ns", "us", "ms", "s"}


def _not_negative(unit: str) -> bool:
    return unit in _TIME_UNITS or unit.endswith("/s") or unit.endswith("/day")


def _date_problem(text: Optional[str], what: str) -> Optional[str]:
    if text is None:
        return None
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return f"{what} {text[:40]!r} is not an ISO 8601 date"
    return None


def _record_problem(rec: Dict[str, Any]) -> Optional[str]:
    s = rec["stats"]
    what = f"{rec['benchmark']} {rec['metric']}"
    if rec["benchmark"] not in BENCHMARKS:
        return f"unknown benchmark '{rec['benchmark'][:40]}'"
    if not stats_in_order(s):
        return f"{what}: stats out of order (min <= median, mean <= max does not hold)"
    if s["ci_low"] > s["ci_high"]:
        return f"{what}: ci_low {s['ci_low']:g} is above ci_high {s['ci_high']:g}"
    if _not_negative(rec["unit"]) and min(s["min"], s["ci_low"]) < 0:
        return f"{what}: a negative {rec['unit']} value"
    return _samples_problem(rec, what)


def _samples_problem(rec: Dict[str, Any], what: str) -> Optional[str]:
    """Samples and percentiles that cannot be the point's: more samples than n, one outside
    [min, max], or p90 / p99 out of order."""
    s, samples = rec["stats"], rec.get("samples") or []
    if len(samples) > s["n"]:
        return f"{what}: {len(samples)} samples for n = {s['n']}"
    if samples and not s["min"] <= min(samples) <= max(samples) <= s["max"]:
        return f"{what}: a sample outside [min, max]"
    tail = [s[k] for k in ("p90", "p99") if k in s]
    if tail != sorted(tail) or any(not s["min"] <= v <= s["max"] for v in tail):
        return f"{what}: p90 and p99 not in order between min and max"
    return None


def _trace_problem(t: Dict[str, Any]) -> Optional[str]:
    """A stored trace is drawn by the report and written by the OTF2 export: it must be the
    merged Chrome trace that `run --trace` stores."""
    if t["benchmark"] not in BENCHMARKS:
        return f"unknown benchmark '{t['benchmark'][:40]}' in a trace"
    try:
        validate(t["trace"])
        check_ranks(t["trace"])
    except TraceError as exc:
        return f"trace of {t['benchmark']}: {str(exc)[:160]}"
    return None


def run_problem(run: Dict[str, Any]) -> Optional[str]:
    """What makes a run that has the export's shape meaningless, or None: dates that are not
    dates, unknown benchmarks, statistics out of order, negative times or rates."""
    checks = [_date_problem(run["started"], "started"), _date_problem(run.get("finished"), "finished")]
    for launch in run["launches"]:
        checks.append(_date_problem(launch.get("started"), "launch started"))
        if launch["benchmark"] not in BENCHMARKS:
            checks.append(f"unknown benchmark '{launch['benchmark'][:40]}' in a launch")
    checks += [_record_problem(r) for r in run["records"]]
    checks += [_trace_problem(t) for t in run.get("traces") or []]
    return next((c for c in checks if c), None)


def _number(value: Any) -> Optional[float]:
    """A launch's estimate as stored: a finite number of seconds, else none (a hostile or an
    older export's)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 1e12
    return float(value) if ok else None


def _run_row(run: Dict[str, Any]) -> Tuple:
    return (run["uuid"], run["started"], run.get("finished"), run["suite"], run["status"],
            json.dumps(list(run["tags"])), run.get("command"),
            json.dumps(run.get("settings") or {}, sort_keys=True), run.get("hpceval_version"))


def import_runs(store: Store, runs: List[Dict[str, Any]]) -> Tuple[List[int], List[str]]:
    """Add the runs not yet stored (by uuid), all in one transaction.
    Returns (new run ids, uuids skipped because already present)."""
    added: List[int] = []
    skipped: List[str] = []
    with store._write() as c:
        for run in runs:
            if c.execute("SELECT 1 FROM runs WHERE uuid = ?", (run["uuid"],)).fetchone():
                skipped.append(run["uuid"])
                continue
            fid = store._fingerprint_id(c, run["fingerprint"])
            cur = c.execute(
                "INSERT INTO runs (uuid, started, finished, suite, status, tags, command, settings,"
                " hpceval_version, fingerprint_id) VALUES (?,?,?,?,?,?,?,?,?,?)",
                _run_row(run) + (fid,))
            rid = int(cur.lastrowid)
            for l in run["launches"]:
                meta = l.get("meta")
                c.execute(
                    "INSERT INTO launches (run_id, benchmark, label, command, env, nranks, started,"
                    " elapsed_s, exit_code, status, message, warnings, meta, estimate_s,"
                    " startup_s) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (rid, l["benchmark"], l.get("label") or l["benchmark"], l["command"],
                     json.dumps(l.get("env") or {}, sort_keys=True),
                     l.get("nranks") or (meta or {}).get("nranks") or 1,
                     l.get("started") or run["started"], l.get("elapsed_s"), l.get("exit_code"),
                     l["status"], l.get("message"), json.dumps(l.get("warnings") or []),
                     json.dumps(meta) if meta is not None else None,
                     _number(l.get("estimate_s")), _number(l.get("startup_s"))))
            insert_records(c, rid, None, run["records"])
            for t in run.get("traces") or []:
                insert_trace(c, rid, None, t["benchmark"], t["label"], t["trace"])
            added.append(rid)
    return added, skipped


def read_export(path: Path | str) -> List[Dict[str, Any]]:
    """The runs of an export file, checked; UsageError with a one-line reason otherwise."""
    path = Path(path)
    raw = read_regular(str(path), str(path))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text; not an hpceval export") from None
    return parse_export(text, str(path))


def import_file(store: Store, path: Path | str) -> Tuple[List[int], List[str]]:
    return import_runs(store, read_export(path))
