"""Hostile input against every command and binary: each probe must end with its exit code and
one line on stderr (no traceback), and leave the database exactly as it was."""
from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from helpers import BIN, CLI, FAST


def db_digest(path: Path) -> str:
    """A hash of the database's content (schema and rows), or 'absent'."""
    if not path.exists():
        return "absent"
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return hashlib.sha256("\n".join(conn.iterdump()).encode()).hexdigest()
    finally:
        conn.close()


def single_line(stderr: str) -> str:
    lines = [l for l in stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


@pytest.fixture(scope="module")
def seeded(tmp_path_factory, bindir) -> Path:
    """A database holding one real (tiny) run, and its export next to it."""
    d = tmp_path_factory.mktemp("seed")
    cli = CLI(d / "results.sqlite")
    p = cli("run", "pingpong", *FAST, "--set", "sizes=8,1K", "--tag", "seed")
    assert p.returncode == 0, p.stderr
    (d / "export.json").write_text(json.dumps(cli.export()))
    return d


@pytest.fixture
def hostile(seeded, tmp_path):
    """A private copy of the seeded database; probe(args, code, message) checks the contract."""
    db = tmp_path / "results.sqlite"
    shutil.copy(seeded / "results.sqlite", db)
    cli = CLI(db)

    def probe(*args, code=2, message="", timeout=120, **kw):
        before = db_digest(db)
        p = cli(*args, timeout=timeout, **kw)
        assert p.returncode == code, (p.stdout, p.stderr)
        line = single_line(p.stderr)
        assert message in line, line
        assert db_digest(db) == before, "the database changed"
        return line
    probe.cli, probe.db, probe.tmp, probe.export = cli, db, tmp_path, seeded / "export.json"
    return probe


# -- run: settings that must be refused in Python before anything launches -----------------
@pytest.mark.parametrize("args,message", [
    (["--timeout", "nan"], "--timeout nan: must be a positive number"),
    (["--timeout", "inf"], "--timeout inf: must be a positive number"),
    (["--timeout=-inf"], "must be a positive number"),
    (["--timeout", "0"], "must be a positive number"),
    (["--timeout", "soon"], "invalid float value"),
    (["--set", "budget=nan"], "'nan' is not a finite number"),
    (["--set", "budget=inf"], "'inf' is not a finite number"),
    (["--set", "ci-target=-nan"], "not a finite number"),
    (["--set", "min-reps=50", "--set", "max-reps=5"], "min-reps 50 is more than max-reps 5"),
    (["--set", "min-reps=1e3"], "'1e3' is not an integer"),
    (["--set", "max-reps=99999999999999999999"], "out of range"),
    (["--set", "sizes="], "empty list of sizes"),
    (["--set", "sizes=1Q"], "is not a size"),
    (["--set", "=3"], "empty parameter name"),
    (["--set", "budget"], "expected NAME=VALUE"),
    (["--set", "inject=explode"], "is not one of"),
    (["--np", "100000"], "100000 ranks: refused, more than 64 ranks per core"),
    (["--np", "-1"], "need at least 1 rank"),
    (["--np", "1e9"], "invalid int value"),
])
def test_run_refuses_before_launching(hostile, args, message):
    hostile("run", "pingpong", *args, message=message)


# -- damaged databases: exit 2 and what is wrong, never an internal error --------------------
def damage(db: Path, sql: str) -> None:
    conn = sqlite3.connect(db)
    conn.executescript(sql)
    conn.close()


@pytest.mark.parametrize("sql,command,message", [
    ("DELETE FROM schema_version", "runs", "schema version is none"),
    ("UPDATE schema_version SET version = ''", "show", "schema version is ''"),
    ("UPDATE schema_version SET version = 'two'", "export", "schema version is 'two'"),
    ("UPDATE schema_version SET version = 2.5", "report", "not one whole number"),
    ("INSERT INTO schema_version VALUES (3)", "runs", "not one whole number"),
    ("DROP TABLE records", "show", "table records missing"),
    ("DROP TABLE launches", "report", "table launches missing"),
    ("DROP TABLE traces", "export", "table traces missing"),
    ("UPDATE records SET params = '{bad'", "show", "record params is not valid JSON"),
    ("UPDATE records SET extra = '[1,'", "export", "record extra is not valid JSON"),
    ("UPDATE runs SET tags = '['", "runs", "tags is not valid JSON"),
    ("UPDATE runs SET settings = 'x'", "report", "settings is not valid JSON"),
    ("UPDATE fingerprints SET data = 'nope'", "show", "fingerprint is not valid JSON"),
    ("UPDATE launches SET warnings = '{'", "history", "launch warnings is not valid JSON"),
    ("UPDATE launches SET meta = '{'; INSERT INTO runs (uuid, started, suite, status, tags,"
     " fingerprint_id, settings) SELECT 'x-' || uuid, started, suite, status, tags, fingerprint_id,"
     " settings FROM runs", "compare", "launch meta is not valid JSON"),
    ("UPDATE schema_version SET version = 99", "runs", "schema version 99"),
])
def test_damaged_database(hostile, sql, command, message):
    damage(hostile.db, sql)
    args = {"runs": ["runs"], "show": ["show", "1"], "export": ["export"], "history": ["history"],
            "compare": ["compare", "1", "2"], "report": ["report", "-o", str(hostile.tmp / "r.html")]}
    hostile(*args[command], message=message)
    assert not (hostile.tmp / "r.html").exists()


@pytest.mark.parametrize("ref,message", [
    ("99999999999999999999999", "no run '99999999999999999999999'"),
    ("-1", "no run '-1'"),
    ("%", "no run '%'"),
    ("", "no run ''"),
    ("\u0663", "no run"),                # an Arabic-Indic digit three: isdigit() but no id
])
def test_show_unknown_runs(hostile, ref, message):
    hostile("show", ref, message=message)


def test_ambiguous_prefix_says_so(hostile):
    conn = sqlite3.connect(hostile.db)
    uuid = conn.execute("SELECT uuid FROM runs").fetchone()[0]
    conn.execute("INSERT INTO runs (uuid, started, suite, status, tags, fingerprint_id, settings)"
                 " SELECT ?, started, suite, status, tags, fingerprint_id, settings FROM runs",
                 (uuid[:4] + "0" * (len(uuid) - 4) if uuid[4] != "0" else uuid[:4] + "1" * 4,))
    conn.commit()
    conn.close()
    hostile("show", uuid[:4], message=f"run '{uuid[:4]}' is ambiguous: the uuids of 2 runs")


@pytest.mark.parametrize("args", [["show", "1"], ["export"], ["history"], ["compare", "1", "2"],
                                  ["report", "-o", "r.html"]])
def test_read_only_commands_create_no_database(hostile, args):
    missing = hostile.tmp / "typo" / "nothing.sqlite"
    hostile(*args, "--db", str(missing), message="no database there")
    assert not missing.exists() and not missing.parent.exists()
