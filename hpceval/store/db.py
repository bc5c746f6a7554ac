"""The results database (SQLite). Writes are short IMMEDIATE transactions in WAL mode with a busy
timeout, so several hpceval processes can write to one database at once and lose nothing; a
launch's records land together or not at all."""
from __future__ import annotations

import json
import math
import os
import socket
import sqlite3
import stat
import time
import uuid as uuidlib
import zlib
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Dict, Iterator, List, Optional, Sequence, Tuple

from hpceval import __version__
from hpceval.errors import UsageError
from hpceval.outfiles import file_type, what_it_is
from hpceval.store import samples as point_samples
from hpceval.store.schema import MIGRATIONS, SCHEMA_VERSION

STATS = ("n", "min", "median", "mean", "max", "stddev", "ci_low", "ci_high")
EXPORT_VERSION = 1
# Keys of a result record that have columns of their own; every other key goes to "extra".
_COLUMNS = {"record_version", "type", "benchmark", "params", "metric", "unit", "statistic",
            "better", "stats", "converged", "extra", "samples"}
TRACE_FORMAT = "chrome-json+zlib"


def record_extra(rec: Dict[str, Any]) -> Dict[str, Any]:
    """What a result record says beyond its stats: verification numbers, per-rank timers..."""
    extra = dict(rec.get("extra") or {})
    extra.update({k: v for k, v in rec.items() if k not in _COLUMNS})
    return extra


def insert_records(c: sqlite3.Connection, run_id: int, launch_id: Optional[int],
                   records: List[Dict[str, Any]]) -> None:
    """Store result records; each one's p90, p99 and cv are computed here (store/samples.py)."""
    c.executemany(
        "INSERT INTO records (run_id, launch_id, benchmark, params, metric, unit, statistic,"
        " better, n, min, median, mean, max, stddev, ci_low, ci_high, converged, extra,"
        " samples, p90, p99, cv) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [(run_id, launch_id, r["benchmark"], json.dumps(r["params"], sort_keys=True), r["metric"],
          r["unit"], r["statistic"], r["better"], *(r["stats"][k] for k in STATS),
          int(bool(r.get("converged", True))),
          json.dumps(record_extra(r), sort_keys=True) if record_extra(r) else None,
          point_samples.encode(r.get("samples")), *point_samples.shape(r).values())
         for r in records])


def insert_trace(c: sqlite3.Connection, run_id: int, launch_id: Optional[int], benchmark: str,
                 label: str, trace: Dict[str, Any]) -> None:
    data = zlib.compress(json.dumps(trace, separators=(",", ":")).encode(), 6)
    c.execute("INSERT INTO traces (run_id, launch_id, benchmark, label, format, data)"
              " VALUES (?,?,?,?,?,?)", (run_id, launch_id, benchmark, label, TRACE_FORMAT, data))


def finite_or_null(obj: Any) -> Any:
    """obj with every non-finite float replaced by None: JSON has no NaN or Infinity, so an
    export writes null for them (docs/export.md). Only a damaged or hand-edited database, or a
    record's extra, can hold one; the import refuses a null statistic."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite_or_null(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [finite_or_null(v) for v in obj]
    return obj


def dump_json(obj: Any, stream: IO[str], indent: Optional[int] = 1) -> None:
    """Strict JSON (never NaN/Infinity) of runs in the export format, newline-terminated."""
    # json.dump writes every token separately (10^7 writes for 10^5 records), json.dumps holds
    # the whole text: write in pieces of about a megabyte instead.
    encoder = json.JSONEncoder(indent=indent, allow_nan=False)
    buf: List[str] = []
    size = 0
    for chunk in encoder.iterencode(finite_or_null(obj)):
        buf.append(chunk)
        size += len(chunk)
        if size > 1 << 20:
            stream.write("".join(buf))
            buf, size = [], 0
    stream.write("".join(buf) + "\n")


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


TABLES = {"schema_version", "fingerprints", "runs", "launches", "records", "traces"}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True                  # someone else's process
    except (OverflowError, ValueError):
        return False
    return True


def _loads(cell: Optional[str], what: str, path: Path) -> Any:
    """A JSON cell; a damaged one is bad input (exit 2), not an internal error."""
    if cell is None:
        return None
    try:
        return json.loads(cell)
    except (TypeError, ValueError):
        raise UsageError(f"database {path} is damaged: {what} is not valid JSON") from None


SQLITE_MAGIC = b"SQLite format 3\0"


def check_db_file(path: Path) -> None:
    """Refuse, before SQLite opens it, a database path that is not absent, empty or a SQLite
    database (through a link or not): SQLite would read a device or wait on a FIFO, and leave
    PATH-journal or PATH-wal beside it (/dev/null-journal)."""
    try:
        st = os.stat(path)
        if stat.S_ISREG(st.st_mode) and st.st_size:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            try:
                head = os.read(fd, 512)
            finally:
                os.close(fd)
    except FileNotFoundError:
        if os.path.islink(path):
            raise UsageError(f"database {path}: a symbolic link to nothing; hpceval does not "
                             "create a database through a link") from None
        return
    except OSError as exc:
        raise UsageError(f"database {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(f"database {path}: not a regular file ({file_type(st.st_mode)}); a "
                         "database is a file")
    if st.st_size and not head.startswith(SQLITE_MAGIC):
        raise UsageError(f"database {path}: file is not a database ({what_it_is(head)}, no "
                         "SQLite header)")


class Store:
    def __init__(self, path: Path | str, create: bool = True):
        """Open (with create, make) the database; a read-only command passes create=False so
        that a mistyped --db is an error rather than a new empty file."""
        self.path = Path(path)
        if not create and not self.path.exists():
            raise UsageError(f"no runs stored in {self.path}: no database there")
        check_db_file(self.path)
        try:
            if create:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(str(self.path), timeout=60.0, isolation_level=None)
            self.conn.row_factory = sqlite3.Row
            self.conn.execute("PRAGMA busy_timeout = 60000")
            _retry_locked(self._migrate)
            # after migrating: rebuilding a table (version 3) needs foreign keys off
            self.conn.execute("PRAGMA foreign_keys = ON")
            self._check_tables()
            self._mark_abandoned()
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
            version = self._version(c)
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

    def _version(self, c: sqlite3.Connection) -> int:
        if not c.execute("SELECT name FROM sqlite_master WHERE name = 'schema_version'").fetchone():
            return 0
        rows = c.execute("SELECT version FROM schema_version").fetchall()
        # bool is an int too, but no version SQLite hands back
        if len(rows) != 1 or not isinstance(rows[0][0], int):
            shown = ", ".join(repr(r[0]) for r in rows) or "none"
            raise UsageError(f"database {self.path} is damaged: its schema version is {shown}, "
                             "not one whole number")
        return rows[0][0]

    def _check_tables(self) -> None:
        names = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        missing = sorted(TABLES - names)
        if missing:
            raise UsageError(f"database {self.path} is damaged: table {', '.join(missing)} missing")

    def _mark_abandoned(self) -> None:
        """Runs left 'running' by a driver on this host that no longer exists were killed
        without a chance to say so (SIGKILL, a crash, a reboot): mark them 'abandoned'."""
        rows = self.conn.execute("SELECT id, driver_pid FROM runs WHERE status = 'running'"
                                 " AND driver_host = ?", (socket.gethostname(),)).fetchall()
        dead = [r["id"] for r in rows if r["driver_pid"] and not _alive(r["driver_pid"])]
        if not dead:
            return
        with self._write() as c:
            c.executemany("UPDATE runs SET status = 'abandoned', finished = ? WHERE id = ?"
                          " AND status = 'running'", [(now(), i) for i in dead])

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
                " settings, hpceval_version, driver_pid, driver_host) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (str(uuidlib.uuid4()), now(), suite, status, json.dumps(list(tags)), fid,
                 command, json.dumps(settings, sort_keys=True), __version__, os.getpid(),
                 socket.gethostname()))
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
            # The job's process drives the run from now on (the submitter has exited): a
            # driver that dies on its node leaves the run to be marked abandoned there.
            c.execute("UPDATE runs SET fingerprint_id = ?, command = ?, settings = ?,"
                      " status = 'running', started = ?, driver_pid = ?, driver_host = ?"
                      " WHERE id = ?",
                      (self._fingerprint_id(c, fingerprint), command,
                       json.dumps(merged, sort_keys=True), now(), os.getpid(),
                       socket.gethostname(), run_id))
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

    def _launches_here(self, columns: str, host: str, simulated: bool, where: str = "",
                       limit: int = -1, statuses: Tuple[str, ...] = ("ok",)) -> List[Tuple]:
        """`columns` of this host's simulated (or real) launches that ended with one of
        `statuses` with an estimate, latest first."""
        marks = ",".join("?" * len(statuses))
        return self.conn.execute(
            f"SELECT {columns} FROM launches l JOIN runs u ON u.id = l.run_id "
            f"JOIN fingerprints f ON f.id = u.fingerprint_id WHERE l.status IN ({marks}) "
            "AND l.startup_s IS NOT NULL AND l.elapsed_s IS NOT NULL AND f.hostname = ? "
            f"AND json_extract(f.data, '$.simulated') IS {'NOT ' if simulated else ''}NULL "
            f"{where} ORDER BY l.id DESC LIMIT ?", (*statuses, host, limit)).fetchall()

    def simulated_launches(self, host: str) -> List[Tuple]:
        """(benchmark, label, nranks, elapsed_s, startup_s, records, their mean samples,
        command, the simulator's version as fingerprinted) of this host's simulated launches (hpceval/simulate/cost.py) that ended ok, or
        were stopped at their time limit with the records they had made: a launch that outran
        its estimate teaches its cost too (halo at 2-8 ranks, 3.8x its declared cost, stopped
        at its limit in every study)."""
        return self._launches_here(
            "l.benchmark, l.label, l.nranks, l.elapsed_s, l.startup_s, "
            "(SELECT count(*) FROM records r WHERE r.launch_id = l.id), "
            "(SELECT avg(r.n) FROM records r WHERE r.launch_id = l.id), l.command, "
            "json_extract(f.data, '$.mpi.version')", host, True,
            statuses=("ok", "timeout"))

    def real_launches(self, host: str, limit: int = 500) -> List[Tuple]:
        """(nranks, elapsed_s, estimate_s, startup_s) of this host's latest real launches
        (hpceval/catalog/estimate.py fit_startup)."""
        return self._launches_here("l.nranks, l.elapsed_s, l.estimate_s, l.startup_s", host,
                                   False, "AND l.estimate_s IS NOT NULL", limit)

    def add_launch(self, run_id: int, launch: Dict[str, Any], records: List[Dict[str, Any]],
                   trace: Optional[Dict[str, Any]] = None) -> int:
        """One launch, its result records and its trace (if traced), in one transaction."""
        with self._write() as c:
            cur = c.execute(
                "INSERT INTO launches (run_id, benchmark, label, command, env, nranks, started,"
                " elapsed_s, exit_code, status, message, warnings, meta, estimate_s, startup_s)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (run_id, launch["benchmark"], launch["label"], launch["command"],
                 json.dumps(launch.get("env", {}), sort_keys=True), launch["nranks"],
                 launch["started"], launch.get("elapsed_s"), launch.get("exit_code"),
                 launch["status"], launch.get("message"), json.dumps(launch.get("warnings", [])),
                 json.dumps(launch["meta"]) if launch.get("meta") is not None else None,
                 launch.get("estimate_s"), launch.get("startup_s")))
            lid = int(cur.lastrowid)
            insert_records(c, run_id, lid, records)
            if trace is not None:
                insert_trace(c, run_id, lid, launch["benchmark"], launch["label"], trace)
            return lid

    def finish_run(self, run_id: int, status: str, reason: Optional[str] = None) -> None:
        """Close a run; `reason` says why it ended short (kept when None)."""
        with self._write() as c:
            c.execute("UPDATE runs SET status = ?, reason = coalesce(?, reason), finished = ?"
                      " WHERE id = ?", (status, reason, now(), run_id))

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
        # SQLite integers are 64-bit: a longer number is no id (but may still be a uuid prefix)
        if ref.isascii() and ref.isdigit() and int(ref) < 2 ** 63:
            if self.conn.execute("SELECT 1 FROM runs WHERE id = ?", (int(ref),)).fetchone():
                return int(ref)
        # A uuid prefix may be all digits too ("51464341"): an id that does not exist is tried
        # as one, when it is as long as the 8 characters `runs` shows (a mistyped id "99" would
        # otherwise name the one run in 256 whose uuid starts with 99).
        if ref and not (ref.isascii() and ref.isdigit() and len(ref) < 8):
            # a plain prefix test: LIKE would read '%' and '_' in the reference as wildcards
            rows = self.conn.execute("SELECT id FROM runs WHERE substr(uuid, 1, ?) = ? ORDER BY id",
                                     (len(ref), ref.lower())).fetchall()
            if len(rows) == 1:
                return rows[0][0]
            if len(rows) > 1:
                ids = ", ".join(str(r[0]) for r in rows[:5]) + (", ..." if len(rows) > 5 else "")
                raise UsageError(f"run '{ref}' is ambiguous: the uuids of {len(rows)} runs start "
                                 f"with it (ids {ids}); give more of the uuid or the id")
        raise UsageError(f"no run '{ref}' in {self.path} (see 'hpceval runs')")

    def list_runs(self, run_id: Optional[int] = None) -> List[Dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT r.*, f.hostname, f.hash AS fp_hash,"
            " (SELECT count(*) FROM records WHERE run_id = r.id) AS nrecords"
            " FROM runs r JOIN fingerprints f ON f.id = r.fingerprint_id"
            " WHERE ? IS NULL OR r.id = ? ORDER BY r.id", (run_id, run_id)).fetchall()
        return [{**dict(r), "tags": _loads(r["tags"], f"run {r['id']} tags", self.path)}
                for r in rows]

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

    def get_run(self, run_id: int, traces: bool = True, samples: bool = False) -> Dict[str, Any]:
        """One run in the export format (docs/export.md). traces=False leaves the stored traces
        out ("traces": []): they can be large, and only the report and the export need them.
        samples=True adds each record's stored samples ("samples", when it has them): the
        export and the comparisons' intervals need them, the rest reads the stats."""
        r = self.conn.execute(
            "SELECT r.*, f.data AS fp FROM runs r JOIN fingerprints f ON f.id = r.fingerprint_id"
            " WHERE r.id = ?", (run_id,)).fetchone()
        if r is None:
            raise UsageError(f"no run {run_id} in {self.path}")

        def j(cell, what):
            return _loads(cell, f"run {run_id} {what}", self.path)
        launches = [{
            "benchmark": l["benchmark"], "label": l["label"], "command": l["command"],
            "env": j(l["env"], "launch env"), "nranks": l["nranks"], "started": l["started"],
            "estimate_s": l["estimate_s"], "startup_s": l["startup_s"],
            "elapsed_s": l["elapsed_s"], "exit_code": l["exit_code"], "status": l["status"],
            "message": l["message"], "warnings": j(l["warnings"], "launch warnings"),
            "meta": j(l["meta"] or None, "launch meta"),
        } for l in self.conn.execute("SELECT * FROM launches WHERE run_id = ? ORDER BY id", (run_id,))]
        records = [{
            "benchmark": x["benchmark"], "params": j(x["params"], "record params"), "metric": x["metric"],
            "unit": x["unit"], "statistic": x["statistic"], "better": x["better"],
            "converged": bool(x["converged"]),
            "stats": {**{k: x[k] for k in STATS}, **point_samples.stats_shape(x)},
            **({"extra": j(x["extra"], "record extra")} if x["extra"] else {}),
            **({"samples": self._samples(x)} if samples and x["samples"] is not None else {}),
        } for x in self.conn.execute("SELECT * FROM records WHERE run_id = ? ORDER BY id", (run_id,))]
        return {
            "export_version": EXPORT_VERSION, "id": r["id"], "uuid": r["uuid"], "started": r["started"],
            "finished": r["finished"], "suite": r["suite"], "status": r["status"],
            "tags": j(r["tags"], "tags"), "command": r["command"], "settings": j(r["settings"], "settings"),
            "hpceval_version": r["hpceval_version"], "fingerprint": j(r["fp"], "fingerprint"),
            "launches": launches, "records": records,
            "traces": self._traces(run_id) if traces else [],
        }

    def _samples(self, row: sqlite3.Row) -> List[float]:
        try:
            return point_samples.decode(row["samples"])
        except ValueError:
            raise UsageError(f"database {self.path} is damaged: record {row['id']}'s samples are "
                             "not zlib-compressed float64 values") from None

    def _traces(self, run_id: int) -> List[Dict[str, Any]]:
        out = []
        for t in self.conn.execute("SELECT * FROM traces WHERE run_id = ? ORDER BY id", (run_id,)):
            if t["format"] != TRACE_FORMAT:
                continue                   # a format this version cannot read: left out
            try:
                trace = json.loads(zlib.decompress(t["data"]))
            except (zlib.error, TypeError, ValueError):
                raise UsageError(f"database {self.path} is damaged: run {run_id} trace "
                                 f"{t['id']} is not zlib-compressed JSON") from None
            out.append({"benchmark": t["benchmark"], "label": t["label"], "trace": trace})
        return out
