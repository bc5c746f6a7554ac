"""Each single-host Open MPI 4 launch keeps its session files in a directory of its own: two
mpiruns that start and end together otherwise race on the shared top directory (one removes it
while the other creates its own inside: "A call to mkdir was unable to create the desired
directory", 1 run in 30 of `experiment sharing`)."""
import os
import subprocess
import sys
from pathlib import Path

from helpers import BIN, ROOT

from hpceval.launch import ompi_session
from hpceval.launch.openmpi import OpenMPILauncher

ORTE = "mpirun (Open MPI) 4.1.4"     # as /usr/bin/mpirun says it; mpirun.openmpi: (OpenRTE)


def _dir(cmd):
    i = cmd.index("orte_tmpdir_base")
    assert cmd[i - 1] == "--mca"
    return Path(cmd[i + 1])


def test_a_directory_per_launch_under_the_users_base(monkeypatch, tmp_path):
    monkeypatch.setenv("OMPI_MCA_orte_tmpdir_base", str(tmp_path))
    monkeypatch.setattr(ompi_session, "_parent", None)   # the base is read at the first launch
    monkeypatch.delenv("SLURM_JOB_NUM_NODES", raising=False)
    monkeypatch.delenv("SLURM_NNODES", raising=False)
    l = OpenMPILauncher("/usr/bin/mpirun", ORTE, cores=2)
    a, b = _dir(l.command(1, ["x"], "core", {})), _dir(l.command(1, ["x"], "core", {}))
    assert a != b and a.parent == b.parent
    assert a.parent.parent == tmp_path and a.parent.name.startswith(f"{ompi_session._prefix()}{os.getpid()}.")
    assert a.parent.is_dir() and oct(a.parent.stat().st_mode & 0o777) == "0o700"


def test_none_where_ranks_run_elsewhere_or_under_prrte(monkeypatch):
    monkeypatch.delenv("SLURM_NNODES", raising=False)
    l = OpenMPILauncher("/usr/bin/mpirun", ORTE, cores=2)
    # on other nodes the orteds would create (and leave) the directory's name
    assert "orte_tmpdir_base" not in l.command(2, ["x"], "core", {}, slots=[("n1", 1), ("n2", 1)])
    monkeypatch.setenv("SLURM_JOB_NUM_NODES", "2")
    assert "orte_tmpdir_base" not in l.command(2, ["x"], "core", {})
    monkeypatch.setenv("SLURM_JOB_NUM_NODES", "1")
    assert "orte_tmpdir_base" in l.command(2, ["x"], "core", {})
    prrte = OpenMPILauncher("/usr/bin/mpirun", "mpirun (Open MPI) 5.0.3", cores=2)
    assert "orte_tmpdir_base" not in prrte.command(2, ["x"], "core", {})


DRIVER = """
import subprocess, sys
from pathlib import Path
from hpceval.launch.base import version_text, which
from hpceval.launch.openmpi import OpenMPILauncher
mpirun = which("mpirun.openmpi")
l = OpenMPILauncher(mpirun, OpenMPILauncher.version_line(version_text(mpirun)), 2)
cmds = [l.command(1, [sys.argv[1], "--n", "64K", "--budget", "0.05", "--min-reps", "3",
                      "--warmup", "0"], "none", {}) for _ in range(4)]
procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
         for c in cmds]
for p in procs:
    out = p.communicate()[0]
    assert p.returncode == 0 and '"type": "end"' in out, out
i = cmds[0].index("orte_tmpdir_base")
print(Path(cmds[0][i + 1]).parent)
"""


def test_concurrent_real_launches_and_the_directory_removed_at_exit(tmp_path):
    env = {**os.environ, "OMPI_MCA_orte_tmpdir_base": str(tmp_path), "PYTHONPATH": str(ROOT)}
    env.pop("SLURM_JOB_NUM_NODES", None)
    p = subprocess.run([sys.executable, "-c", DRIVER, str(BIN / "hpceval-stream")], env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    parent = Path(p.stdout.strip())
    assert parent.parent == tmp_path and not parent.exists()
    assert list(tmp_path.iterdir()) == []       # nothing of Open MPI's left in the base either


def test_a_killed_drivers_directory_is_removed_by_the_next_and_nothing_else(monkeypatch,
                                                                            tmp_path):
    monkeypatch.setenv("OMPI_MCA_orte_tmpdir_base", str(tmp_path))
    monkeypatch.setattr(ompi_session, "_parent", None)
    prefix = ompi_session._prefix()
    dead = subprocess.Popen(["true"])
    dead.wait()
    live = subprocess.Popen(["sleep", "30"])
    try:
        keep = [f"{prefix}{live.pid}.ab12", f"hpceval-ompi.otherhost.{dead.pid}.ab12",
                f"ompi.{dead.pid}.ab12", f"{prefix}{dead.pid}"]
        for n in keep + [f"{prefix}{dead.pid}.x_9Z"]:
            (tmp_path / n / "1").mkdir(parents=True)
        (tmp_path / f"{prefix}{dead.pid}.file").write_text("a file, not a driver's directory")
        ompi_session.launch_dir()
        left = {p.name for p in tmp_path.iterdir()}
        assert left - {Path(ompi_session._parent).name} == set(keep) | {
            f"{prefix}{dead.pid}.file"}
    finally:
        live.kill()
        live.wait()
