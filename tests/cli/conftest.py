"""Fixtures shared by the hostile-input tests: a seeded database and a probe that checks the
contract (exit code, one line on stderr, the database byte-identical)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from helpers import CLI, FAST, db_digest, single_line


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
