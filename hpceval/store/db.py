"""The results database (SQLite). Writes are short IMMEDIATE transactions in WAL mode with a busy
timeout, so several hpceval processes can write to one database at once and lose nothing; a
launch's records land together or not at all."""
from __future__ import annotations

import json
import sqlite3
import time
import uuid as uuidlib
import zlib
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence

from hpceval import __version__
from hpceval.errors import UsageError
from hpceval.store.schema import MIGRATIONS, SCHEMA_VERSION

STATS = ("n", "min", "median", "mean", "max", "stddev", "ci_low", "ci_high")
EXPORT_VERSION = 1
# Keys of a result record that have columns of their own; every other key goes to "extra".
_COLUMNS = {"record_version", "type", "benchmark", "params", "metric", "unit", "statistic",
            "better", "stats", "converged", "extra"}
TRACE_FORMAT = "chrome-json+zlib"


def record_extra(rec: Dict[str, Any]) -> Dict[str, Any]:
    """What a result record says beyond its stats: verification numbers, per-rank timers..."""
    extra = dict(rec.get("extra") or {})
    extra.update({k: v for k, v in rec.items() if k not in _COLUMNS})
    return extra


def insert_records(c: sqlite3.Connection, run_id: int, launch_id: Optional[int],
                   records: List[Dict[str, Any]]) -> None:
    c.executemany(
        "INSERT INTO records (run_id, launch_id, benchmark, params, metric, unit, statistic,"
        " better, n, min, median, mean, max, stddev, ci_low, ci_high, converged, extra)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [(run_id, launch_id, r["benchmark"], json.dumps(r["params"], sort_keys=True), r["metric"],
          r["unit"], r["statistic"], r["better"], *(r["stats"][k] for k in STATS),
          int(bool(r.get("converged", True))),
          json.dumps(record_extra(r), sort_keys=True) if record_extra(r) else None)
         for r in records])


def insert_trace(c: sqlite3.Connection, run_id: int, launch_id: Optional[int], benchmark: str,
                 label: str, trace: Dict[str, Any]) -> None:
    data = zlib.compress(json.dumps(trace, separators=(",", ":")).encode(), 6)
    c.execute("INSERT INTO traces (run_id, launch_id, benchmark, label, format, data)"
              " VALUES (?,?,?,?,?,?)", (run_id, launch_id, benchmark, label, TRACE_FORMAT, data))


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _retry_locked(fn, limit_s: float = 60.0):
    """Run fn, retrying while SQLite says the database is locked. Switching a new database to
    WAL and WAL recovery need an exclusive lock for which SQLite may not wait on the busy
    handler, so two hpceval processes opening one new database at once can collide here."""
    deadline = time.monotonic() + limit_s
    delay = 0.01
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            if time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.5)


class Store:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(str(self.path), timeout=60.0, isolation_level=None)
            self.conn.row_factory = sqlite3.Row
            self.conn.execute("PRAGMA busy_timeout = 60000")
            # After migrating: a migration that rebuilds a table must drop the old one, which
            # foreign keys would refuse (SQLite's documented procedure for schema changes).
            _retry_locked(self._migrate)
            self.conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.DatabaseError as exc:
            raise UsageError(f"database {self.path}: {exc}") from None
        except OSError as exc:
            raise UsageError(f"database {self.path}: {exc.strerror or exc}") from None

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        # IMMEDIATE takes the write lock up front: a second writer waits (busy timeout) instead
        # of failing half-way through with SQLITE_BUSY.
        _retry_locked(lambda: self.conn.execute("BEGIN IMMEDIATE"))
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def _migrate(self) -> None:
        if self.conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            self.conn.execute("PRAGMA journal_mode = WAL")
        with self._write() as c:
            has = c.execute("SELECT name FROM sqlite_master WHERE name = 'schema_version'").fetchone()
            version = c.execute("SELECT version FROM schema_version").fetchone()[0] if has else 0
            if version == 0 and c.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                raise UsageError(f"database {self.path} exists but is not an hpceval database")
            if version > SCHEMA_VERSION:
                raise UsageError(f"database {self.path} has schema version {version}; this hpceval "
                                 f"knows up to {SCHEMA_VERSION}: upgrade hpceval")
            for v in range(version + 1, SCHEMA_VERSION + 1):
                for stmt in filter(str.strip, MIGRATIONS[v].split(";")):
                    c.execute(stmt)
            if version == 0:
                c.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
            elif version < SCHEMA_VERSION:
                c.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))

    # -- writing ---------------------------------------------------------------------------
    def _fingerprint_id(self, c: sqlite3.Connection, fp: Dict[str, Any]) -> int:
        c.execute("INSERT OR IGNORE INTO fingerprints (hash, hostname, data, created) VALUES (?,?,?,?)",
                  (fp["hash"], fp.get("hostname"), json.dumps(fp, sort_keys=True), now()))
        return c.execute("SELECT id FROM fingerprints WHERE hash = ?", (fp["hash"],)).fetchone()[0]

    def create_run(self, suite: str, tags: Sequence[str], fingerprint: Dict[str, Any],
                   command: str, settings: Dict[str, Any], status: str = "running") -> int:
        with self._write() as c:
            fid = self._fingerprint_id(c, fingerprint)
            cur = c.execute(
                "INSERT INTO runs (uuid, started, suite, status, tags, fingerprint_id, command,"
                " settings, hpceval_version) VALUES (?,?,?,?,?,?,?,?,?)",
                (str(uuidlib.uuid4()), now(), suite, status, json.dumps(list(tags)), fid,
                 command, json.dumps(settings, sort_keys=True), __version__))
            return int(cur.lastrowid)

    def start_submitted_run(self, run_id: int, fingerprint: Dict[str, Any], command: str,
                            settings: Dict[str, Any]) -> int:
        """The job of a submitted run starts it: the compute node's fingerprint, the job's
        settings merged over the submitted ones (the script stays), status running."""
        with self._write() as c:
            row = c.execute("SELECT settings FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise UsageError(f"no submitted run {run_id} in {self.path}")
            merged = json.loads(row[0])
            slurm = {**merged.get("slurm", {}), **settings.get("slurm", {})}
            merged.update({**settings, **({"slurm": slurm} if slurm else {})})
            c.execute("UPDATE runs SET fingerprint_id = ?, command = ?, settings = ?,"
                      " status = 'running', started = ? WHERE id = ?",
                      (self._fingerprint_id(c, fingerprint), command,
                       json.dumps(merged, sort_keys=True), now(), run_id))
        return run_id

    def set_settings(self, run_id: int, settings: Dict[str, Any]) -> None:
        """Merge keys into a run's settings (the script of a submitted run)."""
        with self._write() as c:
            row = c.execute("SELECT settings FROM runs WHERE id = ?", (run_id,)).fetchone()
            merged = {**json.loads(row[0]), **settings}
            c.execute("UPDATE runs SET settings = ? WHERE id = ?",
                      (json.dumps(merged, sort_keys=True), run_id))

    def set_job(self, run_id: int, job_id: str) -> None:
        with self._write() as c:
            c.execute("UPDATE runs SET job_id = ? WHERE id = ?", (job_id, run_id))

    def end_job_run(self, run_id: int, status: str, reason: Optional[str]) -> None:
        """A run whose Slurm job ended as Slurm says (cancelled, timeout, failed...)."""
        with self._write() as c:
            c.execute("UPDATE runs SET status = ?, reason = ?, finished = coalesce(finished, ?)"
                      " WHERE id = ?", (status, reason, now(), run_id))

    def add_launch(self, run_id: int, launch: Dict[str, Any], records: List[Dict[str, Any]],
                   trace: Optional[Dict[str, Any]] = None) -> int:
        """One launch, its result records and its trace (if traced), in one transaction."""
        with self._write() as c:
            cur = c.execute(
                "INSERT INTO launches (run_id, benchmark, label, command, env, nranks, started,"
                " elapsed_s, exit_code, status, message, warnings, meta)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (run_id, launch["benchmark"], launch["label"], launch["command"],
                 json.dumps(launch.get("env", {}), sort_keys=True), launch["nranks"],
                 launch["started"], launch.get("elapsed_s"), launch.get("exit_code"),
                 launch["status"], launch.get("message"), json.dumps(launch.get("warnings", [])),
                 json.dumps(launch["meta"]) if launch.get("meta") is not None else None))
            lid = int(cur.lastrowid)
            insert_records(c, run_id, lid, records)
            if trace is not None:
                insert_trace(c, run_id, lid, launch["benchmark"], launch["label"], trace)
            return lid

    def finish_run(self, run_id: int, status: str) -> None:
        with self._write() as c:
            c.execute("UPDATE runs SET status = ?, finished = ? WHERE id = ?", (status, now(), run_id))

    # -- reading ---------------------------------------------------------------------------
    def run_ids(self) -> List[int]:
        return [r[0] for r in self.conn.execute("SELECT id FROM runs ORDER BY id")]

    def latest_run_id(self) -> Optional[int]:
        row = self.conn.execute("SELECT max(id) FROM runs").fetchone()
        return row[0]

    def resolve(self, ref: str) -> int:
        """A run reference: an id, 'latest', or a uuid (prefix)."""
        if ref == "latest":
            rid = self.latest_run_id()
            if rid is None:
                raise UsageError(f"no runs stored in {self.path}")
            return rid
        if ref.isdigit():
            if self.conn.execute("SELECT 1 FROM runs WHERE id = ?", (int(ref),)).fetchone():
                return int(ref)
        # A uuid prefix may be all digits too ("51464341"): an id that does not exist is tried
        # as one.
        if ref:
            rows = self.conn.execute("SELECT id FROM runs WHERE uuid LIKE ?",
                                     (ref.replace("%", "").replace("_", "") + "%",)).fetchall()
            if len(rows) == 1:
                return rows[0][0]
        raise UsageError(f"no run '{ref}' in {self.path} (see 'hpceval runs')")

    def list_runs(self, run_id: Optional[int] = None) -> List[Dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT r.*, f.hostname, f.hash AS fp_hash,"
            " (SELECT count(*) FROM records WHERE run_id = r.id) AS nrecords"
            " FROM runs r JOIN fingerprints f ON f.id = r.fingerprint_id"
            " WHERE ? IS NULL OR r.id = ? ORDER BY r.id", (run_id, run_id)).fetchall()
        return [{**dict(r), "tags": json.loads(r["tags"])} for r in rows]

    def run_row(self, run_id: int) -> Dict[str, Any]:
        """One run as list_runs gives it (status, job id, reason, counts)."""
        return self.list_runs(run_id)[0]

    def progress(self, run_id: int) -> Dict[str, Any]:
        """Status, launches so far and the latest launch of a run (for following a job)."""
        status = self.conn.execute("SELECT status FROM runs WHERE id = ?", (run_id,)).fetchone()
        last = self.conn.execute("SELECT label, status, (SELECT count(*) FROM launches WHERE"
                                 " run_id = ?) FROM launches WHERE run_id = ? ORDER BY id DESC"
                                 " LIMIT 1", (run_id, run_id)).fetchone()
        return {"status": status[0] if status else None, "launches": last[2] if last else 0,
                "last": f"{last[0]} ({last[1]})" if last else None}

    def get_run(self, run_id: int, traces: bool = True) -> Dict[str, Any]:
        """One run in the export format (docs/export.md). traces=False leaves the stored traces
        out ("traces": []): they can be large, and only the report and the export need them."""
        r = self.conn.execute(
            "SELECT r.*, f.data AS fp FROM runs r JOIN fingerprints f ON f.id = r.fingerprint_id"
            " WHERE r.id = ?", (run_id,)).fetchone()
        if r is None:
            raise UsageError(f"no run {run_id} in {self.path}")
        launches = [{
            "benchmark": l["benchmark"], "label": l["label"], "command": l["command"],
            "env": json.loads(l["env"]), "nranks": l["nranks"], "started": l["started"],
            "elapsed_s": l["elapsed_s"], "exit_code": l["exit_code"], "status": l["status"],
            "message": l["message"], "warnings": json.loads(l["warnings"]),
            "meta": json.loads(l["meta"]) if l["meta"] else None,
        } for l in self.conn.execute("SELECT * FROM launches WHERE run_id = ? ORDER BY id", (run_id,))]
        records = [{
            "benchmark": x["benchmark"], "params": json.loads(x["params"]), "metric": x["metric"],
            "unit": x["unit"], "statistic": x["statistic"], "better": x["better"],
            "converged": bool(x["converged"]), "stats": {k: x[k] for k in STATS},
            **({"extra": json.loads(x["extra"])} if x["extra"] else {}),
        } for x in self.conn.execute("SELECT * FROM records WHERE run_id = ? ORDER BY id", (run_id,))]
        return {
            "export_version": EXPORT_VERSION, "id": r["id"], "uuid": r["uuid"], "started": r["started"],
            "finished": r["finished"], "suite": r["suite"], "status": r["status"],
            "tags": json.loads(r["tags"]), "command": r["command"], "settings": json.loads(r["settings"]),
            "hpceval_version": r["hpceval_version"], "fingerprint": json.loads(r["fp"]),
            "launches": launches, "records": records,
            "traces": self._traces(run_id) if traces else [],
        }

    def _traces(self, run_id: int) -> List[Dict[str, Any]]:
        out = []
        for t in self.conn.execute("SELECT * FROM traces WHERE run_id = ? ORDER BY id", (run_id,)):
            if t["format"] != TRACE_FORMAT:
                continue                   # a format this version cannot read: left out
            out.append({"benchmark": t["benchmark"], "label": t["label"],
                        "trace": json.loads(zlib.decompress(t["data"]))})
        return out
