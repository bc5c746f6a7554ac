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
