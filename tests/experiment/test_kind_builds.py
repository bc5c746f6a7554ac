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


def ldd(binary) -> str:
    return subprocess.run(["ldd", str(binary)], capture_output=True, text=True).stdout


def test_own_fft_is_linked_and_verified(cli, bindir, data, tmp_path):
    """The spectral models on hpceval's own FFT (the p690 talk's PSTSWM with and without ESSL):
    linked without FFTW and said so, test case 2 at round-off, psst on 2 ranks equal to its
    serial model, and a corrupted state still fails."""
    p = cli("experiment", "builds", "sst", "--variants", "gcc-native,ownfft", "--rounds", "1",
            *QUICK[2:], *SST, env=data, timeout=600)
    assert p.returncode == 0, p.stderr
    builds = tmp_path / "data" / "hpceval" / "builds"
    own, native = builds / "ownfft" / "bin", builds / "gcc-native" / "bin"
    assert "fftw" not in ldd(own / "hpceval-sst") and "fftw" in ldd(native / "hpceval-sst")
    assert json.loads((own / "buildinfo.json").read_text())["fft"] == "own"
    assert "fft" not in json.loads((native / "buildinfo.json").read_text())   # FFTW: the default
    (run,) = cli.export("latest")
    assert any(n.startswith("build ownfft:") and n.endswith("FFT own")
               for n in run["settings"]["experiment"]["notes"])
    rates = [r for r in run["records"] if r["metric"] == "mflops"]
    assert {r["extra"]["experiment"]["variant"] for r in rates} == {"gcc-native", "ownfft"}
    assert all(r["extra"]["check"] == "ok" and r["extra"]["err_l2"] < 1e-12 for r in rates)
    p = cli("experiment", "builds", "psst", "--variants", "gcc-native,ownfft", "--rounds", "1",
            "--np", "2", "--set", "truncation=10", "--set", "levels=1", "--set", "days=0.2",
            *QUICK[2:], env=data, timeout=600)
    assert p.returncode == 0, p.stderr
    (run,) = cli.export("latest")
    times = [r for r in run["records"] if r["metric"] == "run_time"]
    assert {r["extra"]["experiment"]["variant"] for r in times} == {"gcc-native", "ownfft"}
    assert all(r["extra"]["check"] == "ok" and r["extra"]["max_rel_diff_vs_serial"] <= 1e-12
               for r in times)
    mpirun = ["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", "2"]
    p = subprocess.run([*mpirun, str(own / "hpceval-psst"), "--truncation", "5", "--grids",
                        "1x2", "--inject", "corrupt", "--min-reps", "1", "--max-reps", "1",
                        "--warmup", "0"], capture_output=True, text=True, timeout=120,
                       stdin=subprocess.DEVNULL)
    assert p.returncode != 0 and "differs from the serial" in p.stderr


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
    for flag, value in (("--cc", "clang"), ("--fft", "own")):
        p = cli("build", flag, value, env=data)
        assert p.returncode == 2 and "give --name NAME" in p.stderr, p.stderr
