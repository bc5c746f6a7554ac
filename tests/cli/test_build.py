"""hpceval build: the C core rebuilt with MPICH into the user's data directory; a run then uses
it and records it (fingerprint's compiler, the run's settings); --remove goes back. A build
stopped or killed mid-compile leaves no make, mpicc or cc1 behind and no build in place."""
from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from helpers import FAST, ROOT, new_token, processes_of, wait_for


def test_build_with_mpich_into_the_data_dir_and_run_with_it(cli, tmp_path):
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "HPCEVAL_BINDIR": ""}
    # make test's own flags: its build-mpich filled ccache with these compiles (Makefile)
    built = cli("build", "--mpicc", "mpicc.mpich", "--cflags=-O3 -march=native", env=env)
    assert built.returncode == 0, built.stderr
    assert "mpicc.mpich (mpich" in built.stdout
    build = tmp_path / "data" / "hpceval" / "build"
    assert (build / "bin" / "hpceval-pingpong").is_file()
    assert (build / "lib" / "libhpceval-trace.so").is_file() and not (build / "obj").exists()
    run = cli("run", "pingpong", "--set", "sizes=8", "--set", "refine=0", *FAST, env=env)
    assert run.returncode == 0, run.stderr
    shown = json.loads(cli("show", "1", "--json", env=env).stdout)
    assert shown["fingerprint"]["compiler"]["mpi"] == "mpich"
    assert shown["fingerprint"]["compiler"]["cflags"].startswith("-O3 -march=native ")
    assert shown["settings"]["build"] == str(build / "bin")
    removed = cli("build", "--remove", env=env)
    assert removed.returncode == 0 and not build.exists()


def test_build_with_a_missing_wrapper_is_one_line_and_keeps_the_old_build(cli, tmp_path):
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    proc = cli("build", "--mpicc", str(tmp_path / "no-mpicc"), env=env)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "not found or not executable" in proc.stderr
    assert not (tmp_path / "data" / "hpceval" / "build").exists()


def _building(cli, tmp_path, token) -> subprocess.Popen:
    """`hpceval build --name cut` in a session of its own, once make and a compiler run."""
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), **token}
    driver = subprocess.Popen([*cli.argv(), "build", "--name", "cut", "--cflags=-O0"],
                              env=cli.env(env), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, start_new_session=True, cwd=ROOT)
    assert wait_for(lambda: {"make", "cc1"} <= _names(token), 60), "no compiler started"
    return driver


def _names(token) -> set:
    """The program names of the processes carrying `token` (the build's make, sh, mpicc, cc1)."""
    names = set()
    for pid in processes_of(None, token):
        try:
            names.add(Path(f"/proc/{pid}/comm").read_text().strip())
        except OSError:
            pass
    return names


def _nothing_left(driver: subprocess.Popen, token) -> None:
    try:
        assert wait_for(lambda: not processes_of(None, token), 5), f"left: {_names(token)}"
    finally:
        if driver.poll() is None:
            driver.kill()
        driver.wait()
        for pid in processes_of(None, token):
            os.kill(pid, signal.SIGKILL)


def test_a_killed_build_leaves_no_compiler_running(cli, tmp_path):
    # SIGKILL: no handler of the driver runs; the build's guardian sees its pipe close (#44).
    token = new_token()
    driver = _building(cli, tmp_path, token)
    driver.kill()
    _nothing_left(driver, token)
    assert not (tmp_path / "data" / "hpceval" / "builds" / "cut").exists()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_a_stopped_build_ends_its_processes_and_says_so(cli, tmp_path, sig):
    token = new_token()
    driver = _building(cli, tmp_path, token)
    driver.send_signal(sig)
    try:
        assert driver.wait(timeout=30) == 128 + sig
    finally:
        _nothing_left(driver, token)
    assert driver.stderr.read().splitlines() == [f"hpceval: interrupted by {sig.name}"]
    assert not (tmp_path / "data" / "hpceval" / "builds" / "cut").exists()
