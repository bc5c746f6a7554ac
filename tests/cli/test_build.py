"""hpceval build: the C core rebuilt with MPICH into the user's data directory; a run then uses
it and records it (fingerprint's compiler, the run's settings); --remove goes back."""
from __future__ import annotations

import json

from helpers import FAST


def test_build_with_mpich_into_the_data_dir_and_run_with_it(cli, tmp_path):
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "HPCEVAL_BINDIR": ""}
    built = cli("build", "--mpicc", "mpicc.mpich", "--cflags=-O0", env=env)   # -O0: compiles fastest
    assert built.returncode == 0, built.stderr
    assert "mpicc.mpich (mpich" in built.stdout
    build = tmp_path / "data" / "hpceval" / "build"
    assert (build / "bin" / "hpceval-pingpong").is_file()
    assert (build / "lib" / "libhpceval-trace.so").is_file() and not (build / "obj").exists()
    run = cli("run", "pingpong", "--set", "sizes=8", "--set", "refine=0", *FAST, env=env)
    assert run.returncode == 0, run.stderr
    shown = json.loads(cli("show", "1", "--json", env=env).stdout)
    assert shown["fingerprint"]["compiler"]["mpi"] == "mpich"
    assert shown["fingerprint"]["compiler"]["cflags"].startswith("-O0 ")
    assert shown["settings"]["build"] == str(build / "bin")
    removed = cli("build", "--remove", env=env)
    assert removed.returncode == 0 and not build.exists()


def test_build_with_a_missing_wrapper_is_one_line_and_keeps_the_old_build(cli, tmp_path):
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    proc = cli("build", "--mpicc", str(tmp_path / "no-mpicc"), env=env)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "not found or not executable" in proc.stderr
    assert not (tmp_path / "data" / "hpceval" / "build").exists()
