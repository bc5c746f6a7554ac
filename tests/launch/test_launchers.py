import os
import shutil
import stat
from pathlib import Path

import pytest

from helpers import FAST, ROOT, own_session

from hpceval.errors import UsageError
from hpceval.launch import find_launcher
from hpceval.launch.mpich import MPICHLauncher
from hpceval.launch.openmpi import OpenMPILauncher
from hpceval.launch.srun import SrunLauncher


def fake_program(directory: Path, name: str, version_text: str) -> Path:
    path = directory / name
    # printf is a shell builtin: PATH holds only the fake programs
    path.write_text(f"#!/bin/sh\nprintf '%s\\n' '{version_text}'\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


@pytest.fixture
def fake_path(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    return tmp_path


def test_openmpi_flags(monkeypatch):
    l = OpenMPILauncher("/usr/bin/mpirun", "mpirun (Open MPI) 4.1.4", cores=2)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    cmd = own_session(l.command(2, ["bin", "--x"], "core", {"OMP_NUM_THREADS": "1"}))
    assert cmd == ["/usr/bin/mpirun", "--allow-run-as-root", "--bind-to", "core", "-np", "2",
                   "-x", "OMP_NUM_THREADS", "bin", "--x"]
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    cmd = own_session(l.command(4, ["bin"], "core", {}))
    assert "--allow-run-as-root" not in cmd
    assert cmd[1:9] == ["--oversubscribe", "--bind-to", "none", "--mca", "mpi_yield_when_idle",
                        "1", "-np", "4"]


def test_mpich_and_srun_flags(monkeypatch):
    m = MPICHLauncher("/usr/bin/mpiexec", "HYDRA build details:", cores=2)
    assert m.command(2, ["b"], "core", {"A": "1"}) == ["/usr/bin/mpiexec", "-n", "2", "-bind-to", "core",
                                                      "-genv", "A", "1", "b"]
    assert m.command(3, ["b"], "core", {}) == ["/usr/bin/mpiexec", "-n", "3", "b"]
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    monkeypatch.setenv("SLURM_MPI_TYPE", "pmix")           # the user's choice: srun reads it
    s = SrunLauncher("/usr/bin/srun", "slurm 23.02.7", cores=8)
    assert s.command(2, ["b"], "core", {}) == ["/usr/bin/srun", "-n", "2", "--export=ALL",
                                              "--cpu-bind=cores", "b"]
    assert "--cpu-bind=none" in s.command(1, ["b"], "none", {})


def test_detects_flavour_from_version_text(fake_path):
    fake_program(fake_path, "mpirun", "mpirun (Open MPI) 4.1.4\n\nReport bugs to ...")
    l = find_launcher("auto", 2)
    assert l.flavour == "openmpi" and l.version == "mpirun (Open MPI) 4.1.4"
    (fake_path / "mpirun").unlink()
    fake_program(fake_path, "mpiexec", "HYDRA build details:\n    Version: 4.0.2")
    assert find_launcher("auto", 2).flavour == "mpich"
    assert find_launcher("mpiexec", 2).flavour == "mpich"


def test_srun_inside_slurm_allocation(fake_path, monkeypatch):
    fake_program(fake_path, "mpirun", "mpirun (Open MPI) 4.1.4")
    fake_program(fake_path, "srun", "slurm 23.02.7")
    assert find_launcher("auto", 2).flavour == "openmpi"
    monkeypatch.setenv("SLURM_JOB_ID", "42")
    assert find_launcher("auto", 2).flavour == "slurm"


def test_missing_mpi_is_a_clear_error(fake_path):
    with pytest.raises(UsageError, match=r"no MPI launcher found \(looked for mpirun, mpiexec"):
        find_launcher("auto", 2)
    with pytest.raises(UsageError, match="looked for srun"):
        find_launcher("srun", 2)


def test_unknown_launcher_program(fake_path):
    fake_program(fake_path, "mpirun", "SomeVendor MPI 1.0")
    with pytest.raises(UsageError, match="not an MPI launcher hpceval knows"):
        find_launcher("auto", 2)


def test_prefers_the_mpi_the_binaries_were_built_with(fake_path, monkeypatch):
    fake_program(fake_path, "mpirun", "mpirun (Open MPI) 4.1.4")
    fake_program(fake_path, "mpiexec.mpich", "HYDRA build details:\n    Version: 4.0.2")
    bindir = fake_path / "bin"
    bindir.mkdir()
    monkeypatch.setenv("HPCEVAL_BINDIR", str(bindir))
    assert find_launcher("auto", 2).flavour == "openmpi"          # no buildinfo: as before
    (bindir / "buildinfo.json").write_text('{"cc": "mpicc.mpich", "mpi": "mpich"}')
    l = find_launcher("auto", 2)
    assert (l.flavour, l.program) == ("mpich", str(fake_path / "mpiexec.mpich"))
    assert l.version == "HYDRA 4.0.2"                 # not "HYDRA build details:"
    assert find_launcher("mpirun", 2).flavour == "mpich"
    (bindir / "buildinfo.json").write_text('{"mpi": "openmpi"}')
    assert find_launcher("auto", 2).flavour == "openmpi"
    (fake_path / "mpiexec.mpich").unlink()
    (bindir / "buildinfo.json").write_text('{"mpi": "mpich"}')
    assert find_launcher("auto", 2).flavour == "openmpi"          # the only MPI there is


def test_mpich_build_runs_with_mpiexec_mpich(cli):
    # Real: the binaries of 'make build-mpich', chosen by HPCEVAL_BINDIR, launched by the CLI.
    bindir = ROOT / "build-mpich" / "bin"
    if not shutil.which("mpiexec.mpich"):
        pytest.skip("MPICH is not installed: 'make test' installs it (HPCEVAL_MPICH=1)")
    if not (bindir / "hpceval-pingpong").is_file():
        pytest.fail(f"{bindir}/hpceval-pingpong is not built: run 'make build-mpich' (make test does)")
    p = cli("run", "pingpong", "--np", "2", *FAST, "--set", "sizes=8", timeout=120,
            env={"HPCEVAL_BINDIR": str(bindir)})
    assert p.returncode == 0, p.stderr
    (run,) = cli.export("latest")
    assert run["fingerprint"]["mpi"]["launcher"] == "mpiexec.mpich"
    assert run["fingerprint"]["compiler"]["mpi"] == "mpich"
    (launch,) = run["launches"]
    assert launch["command"].startswith(shutil.which("mpiexec.mpich"))
    assert launch["meta"]["mpi_library"].startswith("MPICH")
