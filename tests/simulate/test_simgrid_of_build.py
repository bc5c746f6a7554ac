"""A build made with another SimGrid's smpicc (scripts/build-simgrid.sh) runs under that
SimGrid's own smpirun, found beside the smpicc its buildinfo names, whatever PATH holds."""
import json
import os
import shutil


def _simgrid_dir(tmp_path):
    """A SimGrid installation of its own: an smpicc, and an smpirun that notes each launch and
    hands it to the real one (the same SimGrid here, so the launch runs)."""
    where = tmp_path / "simgrid" / "bin"
    where.mkdir(parents=True)
    (where / "smpicc").write_text("#!/bin/sh\nexec smpicc \"$@\"\n")
    log = tmp_path / "launches.txt"
    (where / "smpirun").write_text(f"#!/bin/sh\necho \"$*\" >> {log}\n"
                                   f"exec {shutil.which('smpirun')} \"$@\"\n")
    for f in where.iterdir():
        f.chmod(0o755)
    return where, log


def _build_naming(tmp_path, smpi_bin, smpicc):
    """The SMPI build's binaries under a buildinfo that names `smpicc` by path."""
    bindir = tmp_path / "build" / "bin"
    bindir.mkdir(parents=True)
    for f in smpi_bin.iterdir():
        if f.name != "buildinfo.json":
            os.symlink(f, bindir / f.name)
    info = json.loads((smpi_bin / "buildinfo.json").read_text())
    (bindir / "buildinfo.json").write_text(json.dumps({**info, "cc": str(smpicc)}))
    return bindir


def test_the_smpirun_beside_the_builds_smpicc_launches_it(sim, smpi_bin, tmp_path):
    where, log = _simgrid_dir(tmp_path)
    bindir = _build_naming(tmp_path, smpi_bin, where / "smpicc")
    p = sim("run", "pingpong", "--simulate", "nodes=2,ppn=1", "--set", "pingpong.sizes=8",
            "--set", "pingpong.refine=0", env={"HPCEVAL_BINDIR": str(bindir)})
    assert p.returncode == 0, p.stderr
    launched = log.read_text().splitlines()
    assert any(str(bindir / "hpceval-pingpong") in line for line in launched), launched
    [run] = sim.export("latest")
    assert run["records"] and all(r["benchmark"] == "pingpong" for r in run["records"])


def test_a_build_naming_smpicc_by_name_uses_path(sim, smpi_bin, tmp_path):
    where, log = _simgrid_dir(tmp_path)
    bindir = _build_naming(tmp_path, smpi_bin, "smpicc")
    p = sim("run", "pingpong", "--simulate", "nodes=2,ppn=1", "--set", "pingpong.sizes=8",
            "--set", "pingpong.refine=0", env={"HPCEVAL_BINDIR": str(bindir)})
    assert p.returncode == 0, p.stderr
    assert not log.exists()


def test_the_solver_precision_is_set_under_the_name_its_simgrid_knows(tmp_path):
    """nbc at 128 simulated ranks stopped SimGrid 4.1 and crashed 3.32 at their solver's
    default precision: every launch sets it, as maxmin/precision (3.32) or
    precision/work-amount (4.x); a binary of no known SimGrid gets neither."""
    from hpceval.simulate.session import WORK_PRECISION, launch_cfg
    sim = {"cfg": ["--cfg=smpi/host-speed:10Gf"]}
    for version, name in (("3.32", "maxmin/precision"), ("4.1", "precision/work-amount"),
                          (None, None)):
        bindir = tmp_path / str(version)
        bindir.mkdir()
        if version:
            (bindir / "buildinfo.json").write_text(json.dumps(
                {"mpi": "smpi", "compiler": f"SimGrid version {version}"}))
        cfg = launch_cfg(sim, [str(bindir / "hpceval-nbc")], 128)
        wanted = [f"--cfg={name}:{WORK_PRECISION}"] if name else []
        assert [c for c in cfg if "precision" in c] == wanted, cfg
