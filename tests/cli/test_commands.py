"""The read-only commands."""
import json

from hpceval.catalog import BENCHMARKS, SUITES


def test_list(cli):
    p = cli("list")
    assert p.returncode == 0
    for name in list(BENCHMARKS) + list(SUITES):
        assert any(line.strip().startswith(name) for line in p.stdout.splitlines()), name
    assert "sizes=" in p.stdout and "budget" in p.stdout


def test_machine(cli):
    p = cli("machine", "--json")
    assert p.returncode == 0
    fp = json.loads(p.stdout)
    for key in ("hostname", "cpu_model", "sockets", "cores", "threads", "numa_nodes", "caches",
                "memory_bytes", "os", "kernel", "mpi", "compiler", "environment", "hash"):
        assert key in fp, key
    assert len(fp["hash"]) == 64
    p = cli("machine")
    assert p.returncode == 0 and "caches" in p.stdout


def test_empty_database(cli):
    p = cli("runs")
    assert p.returncode == 0 and "no runs" in p.stdout
    p = cli("export")
    assert p.returncode == 0 and json.loads(p.stdout) == []
    assert not cli.db.exists()


def test_db_default_from_environment(cli, tmp_path):
    other = tmp_path / "sub" / "x.sqlite"
    p = cli("runs", env={"HPCEVAL_DB": str(other)})
    # listing creates nothing (issue 18): the path shows which database was meant
    assert p.returncode == 0 and f"no runs in {other}" in p.stdout and not other.exists()


def test_experiment_help_lists_every_registered_kind():
    import subprocess
    import sys
    from helpers import ROOT
    from hpceval.experiment import EXPERIMENTS
    out = subprocess.run([sys.executable, "-m", "hpceval", "experiment", "--help"],
                         capture_output=True, text=True, cwd=ROOT, timeout=60,
                         env={"COLUMNS": "400", "PATH": "/usr/bin:/bin"}).stdout
    assert EXPERIMENTS and all(f"{name}:" in out for name in EXPERIMENTS), out


def test_every_help_prints_without_a_traceback():
    # A stray '%' in a help text ('95% interval') made `hpceval --help` die in argparse.
    import argparse
    from hpceval.cli import build_parser
    top = build_parser(["--help"])
    assert "compare" in top.format_help()
    subs = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    for name, parser in subs.choices.items():
        assert parser.format_help(), name
