"""hpceval experiment binding: real ranks bound by each policy, interleaved, stored as one run;
the report draws the comparison; a policy the machine cannot express is refused."""
import os

from helpers import own_session

from helpers_experiment import QUICK, SST, assert_interleaved, assert_refused

from hpceval.errors import UsageError
from hpceval.launch.mpich import MPICHLauncher
from hpceval.launch.openmpi import OpenMPILauncher
from hpceval.launch.srun import SrunLauncher

import pytest


def test_binding_policies_run_interleaved_and_render(cli, bindir, tmp_path):
    variants = ["consecutive", "alternating", "default"]
    p = cli("experiment", "binding", "sst", *QUICK, *SST, "--figures", str(tmp_path / "figs"))
    assert p.returncode == 0, p.stderr
    assert "Mann-Whitney" in p.stdout and "baseline" in p.stdout
    (run,) = cli.export("latest")
    assert run["status"] == "ok" and "experiment:binding" in run["tags"]
    assert_interleaved(run, variants, 4)
    commands = [l["command"] for l in run["launches"]]
    assert "--cpu-list 0 --bind-to cpu-list:ordered" in commands[0]     # consecutive
    assert "--bind-to" not in commands[2]                                 # the MPI's default
    assert all(l["meta"]["cpus"] == [0] for l in run["launches"][:2])
    assert (tmp_path / "figs" / f"run{run['id']}-experiment_figure.svg").is_file()
    html = tmp_path / "r.html"
    assert cli("report", "latest", "-o", str(html)).returncode == 0
    text = html.read_text()
    assert "Experiments" in text and "significance of each variant" in text


def test_policy_the_machine_cannot_express_is_refused(cli, bindir):
    cpus = len(os.sched_getaffinity(0))
    n = cpus // 2 + 1 + cpus % 2      # more ranks than every other CPU
    assert_refused(cli, "binding", "pingpong", "--np", str(n), "--variants",
                   "consecutive,alternating", says="binding alternating")
    assert_refused(cli, "binding", "sst", "--variants", "consecutive,sideways",
                   says="unknown binding 'sideways'")


def test_each_mpi_spells_the_policies(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1, 2, 3})
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    o = OpenMPILauncher("/usr/bin/mpirun", "4.1.4", cores=4)
    assert own_session(o.command(2, ["b"], "alternating", {}))[1:5] == [
        "--cpu-list", "0,2", "--bind-to", "cpu-list:ordered"]
    assert own_session(o.command(2, ["b"], "default", {})) == ["/usr/bin/mpirun", "-np", "2", "b"]
    m = MPICHLauncher("/usr/bin/mpiexec", "HYDRA", cores=4)
    assert m.command(2, ["b"], "consecutive", {})[3:5] == ["-bind-to", "user:0,1"]
    assert m.command(2, ["b"], "alternating", {})[3:5] == ["-bind-to", "user:0,2"]
    assert "-bind-to" not in m.command(2, ["b"], "default", {})
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    s = SrunLauncher("/usr/bin/srun", "slurm 23.02.7", cores=4)
    assert "--cpu-bind=map_cpu:0,2" in s.command(2, ["b"], "alternating", {})
    assert not any(a.startswith("--cpu-bind") for a in s.command(2, ["b"], "default", {}))
    with pytest.raises(UsageError, match="at most 2 here"):
        o.command(3, ["b"], "alternating", {})


def test_openmp_threads_of_one_rank_are_bound_by_the_runtime(cli, bindir):
    p = cli("experiment", "binding", "stream", "--variants", "consecutive,alternating,default",
            *QUICK, "--set", "threads=2", "--set", "n=200000", timeout=300)
    assert p.returncode == 0, p.stderr
    (run,) = cli.export("latest")
    envs = {l["env"].get("OMP_PROC_BIND", "unset") for l in run["launches"]}
    assert envs == {"close", "spread", "unset"}, envs
    assert all(l["env"]["OMP_NUM_THREADS"] == "2" for l in run["launches"])
