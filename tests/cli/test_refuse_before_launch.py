"""Refuse before launching, not after (#33): what cannot fit the node's memory, values the binary
would refuse, and input files that are not what they claim. Every probe: exit 2, one line, no
MPI launcher started (a wrapper on PATH would have left a mark), the database untouched."""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from helpers import CLI, FAST, db_digest, one_line_error


@pytest.fixture(scope="module")
def seeded(tmp_path_factory, bindir) -> Path:
    """A database holding one real run with a trace, and its export."""
    d = tmp_path_factory.mktemp("seed")
    cli = CLI(d / "results.sqlite")
    p = cli("run", "pingpong", *FAST, "--set", "sizes=8", "--set", "refine=0", "--trace")
    assert p.returncode == 0, p.stderr
    (d / "export.json").write_text(json.dumps(cli.export()))
    return d


@pytest.fixture
def probe(seeded, tmp_path):
    """probe(*args, says=...): exit 2, one line naming `says`, nothing launched, the database
    as it was."""
    db = tmp_path / "results.sqlite"
    shutil.copy(seeded / "results.sqlite", db)
    wrappers, mark = tmp_path / "bin", tmp_path / "launched"
    wrappers.mkdir()
    for name in ("mpirun", "mpiexec"):
        real = shutil.which(name)
        if real:
            (wrappers / name).write_text(f'#!/bin/sh\ncase "$*" in *--version*) ;; *) touch {mark};; '
                                         f'esac\nexec {real} "$@"\n')
            (wrappers / name).chmod(0o755)
    env = {"PATH": f"{wrappers}:{os.environ['PATH']}"}
    cli = CLI(db)

    def run(*args, says: str, code: int = 2, timeout: float = 60):
        before = db_digest(db)
        p = cli(*args, env=env, timeout=timeout)
        assert p.returncode == code, (p.stdout, p.stderr)
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        assert len(lines) == 1, p.stderr
        assert says in one_line_error(p.stderr), p.stderr
        assert not mark.exists(), "an MPI launcher was started"
        assert db_digest(db) == before, "the database changed"
        return lines[0]
    run.tmp, run.seeded, run.cli = tmp_path, seeded, cli
    return run


@pytest.mark.parametrize("sets,says", [
    (["sweep.grid=1100x1100x1100"], "GiB of memory is available"),
    (["sweep.per-rank=780x780x780"], "GiB of memory is available"),
    (["sweep.per-rank=3000000000x1x1"], "more than 2147483647"),
    (["sweep.per-rank=2000x1000x1001"], "more than the binary's"),
    (["phold.lps=1000000000", "phold.end=0.001"], "GiB of memory is available"),
    (["phold.lps=1000000000"], "events per run"),
    (["hydro.cells=2000x2000x2000"], "GiB"),
    (["sst.truncations=1000", "sst.levels=4096", "sst.copies=1"], "GiB of memory is available"),
    (["psst.truncation=1000", "psst.levels=4096"], "GiB of memory is available"),
    (["stream.n=68719476736"], "GiB"),
    (["mem-latency.sizes=1T"], "GiB"),
    (["collectives.sizes=256M", "collectives.nranks=64"], "GiB"),
])
def test_what_does_not_fit_memory_is_refused(probe, sets, says):
    bench = sets[0].split(".")[0]
    probe("run", bench, *[w for s in sets for w in ("--set", s)], says=says)


@pytest.mark.parametrize("bench,sets,says", [
    ("montecarlo", ["thickness=nan"], "not a finite number"),
    ("montecarlo", ["thickness=inf"], "not a finite number"),
    ("montecarlo", ["thickness=-1"], "out of range"),
    ("montecarlo", ["thickness=0"], "out of range"),
    ("montecarlo", ["thickness=1,,2"], "not a number"),
    ("montecarlo", ["thickness=" + ",".join(["1"] * 17)], "at most 16"),
    ("montecarlo", ["sigma-t=-0.5"], "out of range"),
    ("montecarlo", ["sigma-t=1e400"], "not a finite number"),
    ("montecarlo", ["sigma-t=1,2"], "2 values for 1 region"),
    ("montecarlo", ["scatter=1.5"], "out of range"),
    ("montecarlo", ["scatter=NaN"], "not a finite number"),
    ("montecarlo", ["thickness=1,2,3", "scatter=0.1,0.2"], "2 values for 3 regions"),
    ("montecarlo", ["geometry=spheres", "radii=2,1"], "not increasing"),
    ("montecarlo", ["geometry=spheres", "radii=1,1"], "not increasing"),
    ("montecarlo", ["geometry=spheres", "radii=0,1"], "out of range"),
    ("montecarlo", ["geometry=spheres", "radii=1,2,3", "sigma-t=1,2"], "2 values for 3"),
    ("montecarlo", ["geometry=spheres", "source=isotropic"], "point source"),
    ("sweep", ["sigma-s=2"], "below sigma-t"),
    ("sweep", ["sigma-s=1"], "below sigma-t"),
    ("sweep", ["sigma-t=nan"], "not a finite number"),
    ("hydro", ["cells=1x1x9999999999"], "more than 2147483647"),
    ("mem-latency", ["window=8"], "less than a cache line"),
    ("stream", ["max-reps=201"], "out of range"),
    ("phold", ["seed=4611686018427387904"], "out of range"),
])
def test_values_the_binary_would_refuse_are_refused_first(probe, bench, sets, says):
    probe("run", bench, *[w for s in sets for w in ("--set", s)], says=says)


def test_hostfiles_that_are_not_lists_of_names(probe):
    binary = probe.tmp / "binary"
    binary.write_bytes(bytes(range(128, 256)) * 4)
    nul = probe.tmp / "nul"
    nul.write_bytes(b"localhost\0\n")
    fifo = probe.tmp / "fifo"
    os.mkfifo(fifo)
    for path, says in ((binary, "not UTF-8"), ("/dev/zero", "not a regular file"),
                       (fifo, "not a regular file"), (nul, "NUL"), (probe.tmp, "directory")):
        probe("run", "pingpong", "--hostfile", str(path), "--dry-run", says=says, timeout=20)


def test_imports_of_what_is_not_a_file(probe):
    fifo = probe.tmp / "fifo"
    os.mkfifo(fifo)
    for path in ("/dev/zero", fifo):
        probe("import", str(path), says="not a regular file", timeout=20)


def test_runs_under_a_regular_file_is_bad_input(probe):
    (probe.tmp / "file").write_text("not a directory")
    for cmd in ("runs", "export"):
        probe(cmd, "--db", str(probe.tmp / "file" / "x.sqlite"), says="is not a directory")
    assert (probe.tmp / "file").read_text() == "not a directory"


def test_trace_buffers_beyond_memory_are_refused_before_the_program_starts(probe):
    probe("trace", "--max-events", "1000000000000", "-o", str(probe.tmp / "t.json"), "--np",
          "2", "--", "true", says="--max-events")
    assert not (probe.tmp / "t.json").exists()


def _export(probe) -> list:
    return json.loads((probe.seeded / "export.json").read_text())


@pytest.mark.parametrize("damage,says", [
    (lambda t: t["trace"].__setitem__("traceEvents", [1, "x"]), "expected an object"),
    (lambda t: t.__setitem__("benchmark", "a/b"), "unknown benchmark 'a/b'"),
    (lambda t: t["trace"].__setitem__("otherData", {"nranks": 1, "hosts": ["h"]}), "outside ranks"),
    (lambda t: t["trace"].pop("otherData"), "no otherData"),
    (lambda t: t["trace"]["otherData"].__setitem__("hosts", [1, 2]), "host names"),
])
def test_imported_traces_must_be_traces(probe, damage, says):
    runs = _export(probe)
    runs[0]["uuid"] = "00000000-0000-4000-8000-000000000033"
    damage(runs[0]["traces"][0])
    bad = probe.tmp / "bad.json"
    bad.write_text(json.dumps(runs))
    probe("import", str(bad), says=says)


def test_a_stored_trace_with_an_odd_name_exports_under_a_plain_name(probe):
    """A database written before the import checked names: 'a/b' becomes a file name, not a
    path (was FileNotFoundError)."""
    pytest.importorskip("otf2")
    conn = sqlite3.connect(probe.cli.db)
    conn.execute("UPDATE traces SET benchmark = 'a/b'")
    conn.commit()
    conn.close()
    out = probe.tmp / "otf2"
    p = probe.cli("export", "--format", "otf2", "-o", str(out))
    assert p.returncode == 0, p.stderr
    assert [d.name for d in out.iterdir()] == ["1-1-a_b"]


@pytest.mark.parametrize("args,state", [(["up", "²"], None), (["up", "٣"], None),
                                        (["up", "1" * 30], None), (["status"], "[1, 2]"),
                                        (["down"], '{"nodes": [1]}'), (["status"], "null")])
def test_vcluster_says_what_is_wrong_in_one_line(tmp_path, args, state):
    import subprocess
    import sys

    from helpers import ROOT
    if state is not None:
        (tmp_path / "state.json").write_text(state)
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "vcluster"), *args],
                       capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
                       env={**os.environ, "HPCEVAL_VCLUSTER_DIR": str(tmp_path)})
    assert p.returncode == 2, (p.stdout, p.stderr)
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and lines[0].startswith("vcluster: error:"), p.stderr
