"""hpceval experiment builds (and hpceval build --name, hpceval run --build): the same kernel
built with other flags or another BLAS into directories of their own, run interleaved from
them; a build that does not compile is one line and left out while the others run."""
import json
import subprocess

import pytest

from helpers import FAST, one_line_error
from helpers_experiment import QUICK, SST, assert_interleaved


@pytest.fixture
def data(tmp_path):
    """A private $XDG_DATA_HOME: the builds land there, not in the user's."""
    return {"XDG_DATA_HOME": str(tmp_path / "data")}


def test_flags_variants_and_a_failing_build(cli, bindir, data, tmp_path):
    # gcc-native: make test's own flags, compiled from ccache (Makefile); gcc-O2 compiles anew
    p = cli("experiment", "builds", "column", "--variants", "gcc-O2,gcc-native,bad=-fno-such-flag",
            "--rounds", "2", "--set", "nlons=8", "--set", "ncols=16", *QUICK[2:], env=data,
            timeout=300)
    assert p.returncode == 0, p.stderr
    (run,) = cli.export("latest")
    assert_interleaved(run, ["gcc-O2", "gcc-native"], 2)
    notes = run["settings"]["experiment"]["notes"]
    bad = next(n for n in notes if n.startswith("build bad failed, left out:"))
    assert "no-such-flag" in bad and "\n" not in bad, bad        # the compiler's own line
    assert any(n.startswith("build gcc-O2:") and "-O2" in n for n in notes), notes
    builds = tmp_path / "data" / "hpceval" / "builds"
    # only the benchmark's own binary is built for an experiment
    assert sorted(f.name for f in (builds / "gcc-native" / "bin").iterdir()) == [
        "buildinfo.json", "hpceval-column"]
    dirs = {l["env"]["HPCEVAL_BINDIR"] for l in run["launches"]}
    assert dirs == {str(builds / n / "bin") for n in ("gcc-O2", "gcc-native")}


def test_reference_blas_is_linked_and_runs(cli, bindir, data, tmp_path):
    # one round: what is checked is the linking (test_flags_variants_... checks the rounds)
    p = cli("experiment", "builds", "sst", "--variants", "gcc-native,refblas", "--rounds", "1",
            *QUICK[2:], *SST, env=data, timeout=600)
    assert p.returncode == 0, p.stderr
    sst = tmp_path / "data" / "hpceval" / "builds" / "refblas" / "bin" / "hpceval-sst"
    libs = subprocess.run(["ldd", str(sst)], capture_output=True, text=True).stdout
    assert "/blas/libblas.so.3" in libs and "openblas" not in libs, libs
    info = json.loads((sst.parent / "buildinfo.json").read_text())
    assert "libblas.so.3" in info["blas"]
    # the same build by name for an ordinary run: its buildinfo is the run's fingerprint's
    p = cli("run", "sst", "--build", "refblas", *FAST, *SST, env=data)
    assert p.returncode == 0, p.stderr
    (run,) = cli.export("latest")
    assert run["settings"]["build"] == str(sst.parent)
    assert "libblas.so.3" in run["fingerprint"]["compiler"]["blas"]
    # the dense solve (ScaLAPACK, which calls the BLAS) runs the variant's BLAS too: the
    # executable's RPATH resolves ScaLAPACK's own libblas.so.3 to the reference one
    p = cli("experiment", "builds", "dense", "--variants", "gcc-native,refblas", "--rounds", "1",
            "--np", "1", "--set", "dense.n=200", "--set", "dense.nb=32", *QUICK[2:], env=data,
            timeout=600)
    assert p.returncode == 0, p.stderr
    dense = sst.parent / "hpceval-dense"
    libs = subprocess.run(["ldd", str(dense)], capture_output=True, text=True).stdout
    assert "/blas/libblas.so.3" in libs and "scalapack" in libs and "openblas" not in libs, libs
    (run,) = cli.export("latest")
    assert {r["params"]["kind"] for r in run["records"] if r["metric"] == "gflops"} == {"complex"}


@pytest.mark.parametrize("args,says", [
    (["--variants", "gcc-O2"], "at least two variants"),
    (["--variants", "nosuch,gcc-O2"], "unknown build 'nosuch'"),
    (["--variants", "gcc-O2,x="], "NAME=CFLAGS"),
    (["--variants", "a=-fno-such-flag,b=-fno-such-flag-either"], "fewer than two variants"),
])
def test_refusals(cli, bindir, data, args, says):
    p = cli("experiment", "builds", "column", *args, *QUICK, env=data)
    assert p.returncode == 2 and says in one_line_error(p.stderr), p.stderr
    assert not cli.db.exists() or cli("runs").stdout.count("experiment") == 0


def test_run_build_and_build_name_refusals(cli, data):
    p = cli("run", "pingpong", "--build", "nosuch", env=data)
    assert p.returncode == 2 and "hpceval build --name nosuch" in p.stderr, p.stderr
    p = cli("build", "--cc", "clang", env=data)
    assert p.returncode == 2 and "give --name NAME" in p.stderr, p.stderr
