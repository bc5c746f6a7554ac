"""Bad input: a one-line reason, a non-zero exit, no traceback, nothing stored lost."""
import os
import shutil

import pytest

from helpers import FAST, one_line_error


@pytest.mark.parametrize("args,code,message", [
    (["run"], 2, "the following arguments are required"),
    (["run", "nosuch"], 2, "unknown suite or benchmark 'nosuch'"),
    (["run", "pingpong", "--np", "1"], 2, "pingpong needs at least 2 ranks"),
    (["run", "pingpong", "--np", "0"], 2, "--np 0: need at least 1 rank"),
    (["run", "pingpong", "--np", "two"], 2, "invalid int value: 'two'"),
    (["run", "pingpong", "--set", "sizes=-3"], 2, "is not a size"),
    (["run", "pingpong", "--set", "budget=1e9"], 2, "out of range"),
    (["run", "pingpong", "--set", "nosuch=1"], 2, "no parameter 'nosuch'"),
    (["run", "mem-latency", "--set", "sizes=100T"], 2, "100T is out of range [16, 1024G]"),
    (["run", "mem-latency", "--set", "sizes=900G"], 2, "needs 900.0 GiB but only"),
    (["run", "pingpong", "--launcher", "poe"], 2, "invalid choice: 'poe'"),
    (["run", "pingpong", "--timeout", "-1"], 2, "--timeout: -1: must be a positive number"),
    (["show", "7"], 2, "no runs stored"),
    (["export", "--format", "xml"], 2, "invalid choice: 'xml'"),
    (["report", "-o", "/nonexistent/dir/r.html"], 2, "does not exist"),
    (["frobnicate"], 2, "invalid choice: 'frobnicate'"),
])
def test_usage_errors(cli, args, code, message):
    p = cli(*args)
    assert p.returncode == code, (p.stdout, p.stderr)
    assert message in one_line_error(p.stderr)


def test_no_runs_yet(cli):
    p = cli("report", "-o", "x.html")
    assert p.returncode == 2 and "no runs stored" in one_line_error(p.stderr)


def test_missing_mpi(cli, tmp_path, bindir):
    # A PATH with python but no MPI launcher.
    p = cli("run", "pingpong", env={"PATH": str(tmp_path)})
    assert p.returncode == 2
    assert "no MPI launcher found" in one_line_error(p.stderr)


def test_corrupt_database(cli, tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"\x00garbage" * 512)
    p = cli("runs", "--db", str(bad))
    assert p.returncode == 2 and "file is not a database" in one_line_error(p.stderr)


def _ok_then(cli, inject, *extra):
    return cli("run", "mem-latency", "pingpong", *FAST, "--set", "mem-latency.sizes=4K,64K",
               "--set", "mem-latency.window=0",
               "--set", "pingpong.sizes=8,1K", "--set", f"pingpong.inject={inject}", *extra)


def test_wrong_data_fails_loudly(cli, bindir):
    p = _ok_then(cli, "corrupt")
    assert p.returncode == 1, p.stderr
    msg = one_line_error(p.stderr)
    assert "run 1 failed" in msg and "check failed" in msg.lower()
    [run] = cli.export()
    assert run["status"] == "failed"
    assert [l["status"] for l in run["launches"]] == ["ok", "failed"]
    assert {r["benchmark"] for r in run["records"]} == {"mem-latency"}   # earlier records stay


def test_dead_rank(cli, bindir):
    p = _ok_then(cli, "die")
    assert p.returncode == 1
    # the rank and its status, not mpirun's banner
    assert "rank 1 exited with status 7" in one_line_error(p.stderr)
    [run] = cli.export()
    assert run["status"] == "failed" and run["launches"][1]["status"] == "failed"
    assert len([r for r in run["records"] if r["benchmark"] == "mem-latency"]) == 2


def test_hung_rank_is_killed(cli, bindir):
    p = _ok_then(cli, "hang", "--timeout", "6")
    assert p.returncode == 1
    assert "time limit" in one_line_error(p.stderr)
    [run] = cli.export()
    assert run["status"] == "failed" and run["launches"][1]["status"] == "timeout"
    assert len(run["records"]) == 2
    # nothing of the killed job is left running
    assert not [l for l in os.popen("ps -eo args").read().splitlines() if "hpceval-pingpong" in l
                and "--inject" in l]
