"""`pip install` of the checkout compiles the C core (setup.py -> hpceval/cbuild.py ->
csrc/Makefile) into the package, and `hpceval run` works from elsewhere with no make and no
HPCEVAL_BINDIR; a broken MPI compiler wrapper is one line and a failed install.

The fresh virtual environment borrows this interpreter's installed dependencies (numpy, scipy, ...)
through a .pth line and installs hpceval with --no-deps: the test is about the C core, and
downloading the scientific stack would take minutes."""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tarfile
import time
from pathlib import Path

import pytest

from helpers import FAST, ROOT

from hpceval import cbuild


def _env(tmp: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HPCEVAL_", "PYTHON", "VIRTUAL_ENV", "MPICC"))}
    return {**env, "HPCEVAL_DB": str(tmp / "results.sqlite"), "XDG_DATA_HOME": str(tmp / "data"),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_ROOT_USER_ACTION": "ignore", **extra}


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(d / "v")], check=True, timeout=120)
    py = d / "v" / "bin" / "python"
    purelib = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "hpceval-test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return d / "v"


def _pip_install(venv: Path, tmp: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps",
                           str(ROOT)], capture_output=True, text=True, timeout=600, cwd=tmp,
                          env=_env(tmp, **env))


def test_pip_install_builds_the_c_core_and_run_works_elsewhere(venv, tmp_path):
    start = time.monotonic()
    proc = _pip_install(venv, tmp_path)
    assert proc.returncode == 0, proc.stderr
    print(f"pip install: {time.monotonic() - start:.1f} s")
    py = str(venv / "bin" / "python")
    where = subprocess.run([py, "-c", "import hpceval.paths as p; print(p.bin_dir())"],
                           capture_output=True, text=True, cwd=tmp_path, env=_env(tmp_path))
    bindir = Path(where.stdout.strip())
    assert bindir.is_relative_to(venv) and (bindir / "hpceval-pingpong").is_file(), where
    assert (bindir / "buildinfo.json").is_file()
    assert (bindir.parent / "lib" / "libhpceval-trace.so").is_file()
    # `hpceval build` rebuilds from the sources installed with the package
    csrc = subprocess.run([py, "-c", "import hpceval.paths as p; print(p.source_csrc())"],
                          capture_output=True, text=True, cwd=tmp_path, env=_env(tmp_path))
    assert Path(csrc.stdout.strip()) == bindir.parent.parent / "_csrc"
    assert (bindir.parent.parent / "_csrc" / "Makefile").is_file()
    run = subprocess.run([str(venv / "bin" / "hpceval"), "run", "pingpong", "--set", "sizes=8",
                          "--set", "refine=0", *FAST], capture_output=True, text=True,
                         cwd=tmp_path, env=_env(tmp_path), timeout=300)
    assert run.returncode == 0, run.stderr
    assert "Ping-pong latency, 8 B" in run.stdout


def test_sdist_carries_the_c_sources_and_installs(venv, tmp_path):
    sdist = subprocess.run([sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path)],
                           capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert sdist.returncode == 0, sdist.stderr
    [archive] = tmp_path.glob("hpceval-*.tar.gz")
    with tarfile.open(archive) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    assert {"setup.py", "MANIFEST.in", "hpceval/cbuild.py", "csrc/Makefile", "csrc/trace/trace.c",
            "csrc/kernels/lib/libs", "csrc/harness/harness.h"} <= names
    assert not any(n.startswith("build/") for n in names)
    # the default flags, which make test's own build compiled into ccache (Makefile)
    proc = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps",
                           "--force-reinstall", str(archive)], capture_output=True, text=True,
                          timeout=600, cwd=tmp_path, env=_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    where = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import hpceval.paths as p; print(p.bin_dir())"],
                           capture_output=True, text=True, cwd=tmp_path, env=_env(tmp_path))
    assert (Path(where.stdout.strip()) / "hpceval-pingpong").is_file()


def test_pip_install_with_a_broken_mpicc_is_one_line(venv, tmp_path):
    broken = tmp_path / "mpicc"
    broken.write_text("#!/bin/sh\necho 'this wrapper is broken' >&2\nexit 1\n")
    broken.chmod(0o755)
    proc = _pip_install(venv, tmp_path, MPICC=str(broken))
    assert proc.returncode != 0
    ours = [ln for ln in (proc.stdout + proc.stderr).splitlines() if "hpceval: error:" in ln]
    assert len(ours) == 1 and "cannot build an MPI program" in ours[0], proc.stderr
    assert "libopenmpi-dev" in ours[0]


def test_missing_mpicc_names_the_packages(monkeypatch):
    monkeypatch.setenv("MPICC", "no-such-mpicc")
    with pytest.raises(cbuild.BuildError, match="MPICC.*libopenmpi-dev or mpich"):
        cbuild.find_mpicc()
    monkeypatch.delenv("MPICC")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(cbuild.BuildError, match="no MPI compiler wrapper 'mpicc' on PATH"):
        cbuild.find_mpicc()


def test_missing_library_names_its_package(tmp_path, monkeypatch):
    csrc = tmp_path / "csrc"
    (csrc / "kernels" / "lib").mkdir(parents=True)
    (csrc / "kernels" / "lib" / "libs").write_text("# FFTW\n-lfftw3\n")
    # FFTW is installed here: ask for a header no machine has, the way a missing FFTW looks.
    _, body, name, packages = cbuild._LIBRARIES["-lfftw3"]
    monkeypatch.setitem(cbuild._LIBRARIES, "-lfftw3", ("no_such_fftw3.h", body, name, packages))
    with pytest.raises(cbuild.BuildError, match="FFTW not found.*libfftw3-dev"):
        cbuild.check(cbuild.find_mpicc(), csrc)
    monkeypatch.undo()
    cbuild.check(cbuild.find_mpicc(), ROOT / "csrc")      # the real libraries are there
