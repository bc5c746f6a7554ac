"""Import another machine's `hpceval export --format json` output (docs/export.md).

The file is checked whole against the export schema before anything is written, then every new
run goes in one transaction: a corrupt, truncated or foreign file changes nothing. Runs are
identified by uuid, so importing the same file twice adds nothing the second time; fingerprints
are stored once per hash.
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Dict, List, Tuple

import jsonschema

from hpceval.errors import UsageError
from hpceval.store.db import Store, insert_records, insert_trace


@lru_cache(maxsize=1)
def _validator() -> jsonschema.protocols.Validator:
    schema = json.loads(resources.files("hpceval").joinpath("schemas/export-1.json").read_text())
    return jsonschema.Draft202012Validator(schema)


def _no_constant(name: str) -> float:
    # json accepts NaN/Infinity by default; the export format never holds them (docs/records.md).
    raise ValueError(f"non-finite number {name}")


def _where(err: jsonschema.ValidationError) -> str:
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)
    return path.lstrip(".") or "top level"


def parse_export(text: str, name: str = "input") -> List[Dict[str, Any]]:
    """The runs of an export file, or UsageError with a one-line reason."""
    if not text.strip():
        raise UsageError(f"{name}: empty file, not an hpceval export")
    try:
        runs = json.loads(text, parse_constant=_no_constant)
    except ValueError as exc:
        # A cut-off file fails here too ("Expecting ... line N"): say so in one line.
        raise UsageError(f"{name}: not valid JSON ({str(exc).splitlines()[0]}); "
                         "truncated or not an hpceval export") from None
    if isinstance(runs, dict) and "export_version" in runs:
        runs = [runs]                      # `hpceval show --json` writes a single run
    err = jsonschema.exceptions.best_match(_validator().iter_errors(runs))
    if err is not None:
        msg = err.message if len(err.message) < 160 else err.message[:157] + "..."
        raise UsageError(f"{name}: not an hpceval export version 1: at {_where(err)}: {msg}")
    return runs


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
                    " elapsed_s, exit_code, status, message, warnings, meta)"
                    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (rid, l["benchmark"], l.get("label") or l["benchmark"], l["command"],
                     json.dumps(l.get("env") or {}, sort_keys=True),
                     l.get("nranks") or (meta or {}).get("nranks") or 1,
                     l.get("started") or run["started"], l.get("elapsed_s"), l.get("exit_code"),
                     l["status"], l.get("message"), json.dumps(l.get("warnings") or []),
                     json.dumps(meta) if meta is not None else None))
            insert_records(c, rid, None, run["records"])
            for t in run.get("traces") or []:
                insert_trace(c, rid, None, t["benchmark"], t["label"], t["trace"])
            added.append(rid)
    return added, skipped


def read_export(path: Path | str) -> List[Dict[str, Any]]:
    """The runs of an export file, checked; UsageError with a one-line reason otherwise."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text; not an hpceval export") from None
    return parse_export(text, str(path))


def import_file(store: Store, path: Path | str) -> Tuple[List[int], List[str]]:
    return import_runs(store, read_export(path))
