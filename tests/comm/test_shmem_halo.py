"""shmem-halo: the binary's records per method and size at 1 and 2 ranks (the Co-Array Fortran
methods too: make test installs OpenCoarrays), the ghost check that bites under every method,
bad input as one line, a build without OpenSHMEM refusing with what it needs, a build without
Co-Array Fortran leaving its methods out, its place in the comm suite, the X1 figure, and a
stored run compared. Behaviour only: no time is asserted."""
import json

import pytest

from helpers import FAST, one_line_error
from helpers_comm import MPICH_BIN, QUICK, error_of, launch, run_ok, run_twice_and_compare
from hpceval.catalog.registry import SUITES

METHODS = ["mpi", "mpi-put", "shmem-put", "shmem-get", "shmem-flag"]
CAF = ["caf-put", "caf-get", "caf-sync"]


@pytest.mark.parametrize("nranks, grid", [(1, "1x1"), (2, "2x1")])
def test_records_per_method_and_size(bindir, nranks, grid):
    """One rank is its own neighbour on every side (the periodic grid wraps): the same code."""
    results = run_ok(bindir, "shmem-halo", ["--sizes", "1,300"], nranks)
    got = [(r["params"]["words"], r["params"]["method"], r["metric"]) for r in results]
    assert got == [(w, m, metric) for w in (1, 300) for m in METHODS
                   for metric in ("latency", "bandwidth")]
    for r in results:
        assert r["params"]["grid"] == grid and r["params"]["nranks"] == nranks
        assert r["unit"] == ("us" if r["metric"] == "latency" else "MB/s")
    lat = {(r["params"]["words"], r["params"]["method"]): r["stats"]["median"] for r in results
           if r["metric"] == "latency"}
    bw = {(r["params"]["words"], r["params"]["method"]): r["stats"]["median"] for r in results
          if r["metric"] == "bandwidth"}
    # bandwidth is the halo words a rank receives (4 sides x 4 bytes) over the update's time
    for k, t in lat.items():
        assert bw[k] == pytest.approx(16 * k[0] / t, rel=0.2)


@pytest.mark.parametrize("nranks, grid", [(1, "1x1"), (2, "2x1")])
def test_co_array_fortran_records(bindir, nranks, grid):
    """The coarrays' updates, verified word by word like the others (OpenCoarrays' images are
    MPI's ranks)."""
    info = json.loads((bindir / "buildinfo.json").read_text())
    assert info.get("caf") is True, "no Co-Array Fortran: make test installs OpenCoarrays"
    results = run_ok(bindir, "shmem-halo", ["--sizes", "1,300", "--methods", ",".join(CAF)],
                     nranks)
    got = [(r["params"]["words"], r["params"]["method"], r["metric"]) for r in results]
    assert got == [(w, m, metric) for w in (1, 300) for m in CAF
                   for metric in ("latency", "bandwidth")]
    assert all(r["params"]["grid"] == grid and r["check"] == "ok" for r in results)


@pytest.mark.parametrize("method", METHODS + CAF)
def test_a_wrong_ghost_word_is_caught(bindir, method):
    status, msg = error_of(launch(bindir, "shmem-halo", ["--sizes", "16", "--methods", method,
                                                         "--inject", "corrupt"] + QUICK))
    assert status == 1, msg
    # rank 1 fails (the corrupted one): its error line, not rank 0's record
    assert (f"error (rank 1): data check failed: shmem-halo {method}, 16 words, sample 0: rank "
            "1's ghost from side 0, word 15, is wrong") in msg, msg


@pytest.mark.parametrize("args, message", [
    (["--sizes", "0"], "option --sizes: 0 is out of range"),
    (["--methods", "caf"], "option --methods: 'caf' is not one of mpi, mpi-put, shmem-put, "
                           "shmem-get, shmem-flag, caf-put, caf-get, caf-sync, all"),
])
def test_bad_input_binary(bindir, args, message):
    status, msg = error_of(launch(bindir, "shmem-halo", args))
    assert status == 2 and message in msg and "\n" not in msg.strip()


def test_a_build_without_openshmem_says_what_it_needs(cli, monkeypatch):
    """MPICH has no OpenSHMEM: its build leaves the binary out (csrc/shmem/lib/needs.c) and
    `hpceval run` refuses in one line, naming what is missing."""
    info = json.loads((MPICH_BIN / "buildinfo.json").read_text())
    assert info["left_out"]["shmem-halo"].startswith("needs OpenSHMEM (shmem.h and liboshmem")
    assert not (MPICH_BIN / "hpceval-shmem-halo").exists()
    monkeypatch.setenv("HPCEVAL_BINDIR", str(MPICH_BIN))
    p = cli("run", "shmem-halo", *FAST)
    assert p.returncode == 2
    assert one_line_error(p.stderr).startswith("hpceval: error: shmem-halo is not in the build "
                                               f"{MPICH_BIN}: needs OpenSHMEM"), p.stderr


def test_a_build_without_co_array_fortran_leaves_its_methods_out(cli, bindir, tmp_path,
                                                                  monkeypatch):
    """A build whose buildinfo.json does not say "caf": 'all' plans without the caf methods
    and says so; a caf method named is refused in one line before launching."""
    build = tmp_path / "bin"
    build.mkdir()
    for f in bindir.iterdir():
        if f.name != "buildinfo.json":
            (build / f.name).symlink_to(f)
    info = json.loads((bindir / "buildinfo.json").read_text())
    info.pop("caf", None)
    (build / "buildinfo.json").write_text(json.dumps(info))
    monkeypatch.setenv("HPCEVAL_BINDIR", str(build))
    p = cli("run", "shmem-halo", "--np", "2", "--dry-run", "--json", "--set",
            "shmem-halo.methods=all")
    assert p.returncode == 0, p.stderr
    plan = json.loads(p.stdout)
    assert "shmem-halo: methods caf-put, caf-get, caf-sync left out: this build has no " \
        "Co-Array Fortran" in plan["notes"]
    [launch_] = plan["launches"]
    assert launch_["params"]["methods"] == ",".join(METHODS)
    p = cli("run", "shmem-halo", "--np", "2", "--set", "shmem-halo.methods=mpi,caf-put")
    assert p.returncode == 2
    assert one_line_error(p.stderr).startswith("hpceval: error: --set shmem-halo.methods: the "
                                               "caf methods need a build with Co-Array Fortran")


def test_in_the_comm_suite():
    [(name, settings)] = [e for e in SUITES["comm"].entries if e[0] == "shmem-halo"]
    assert settings["ranks"] == "2,4" and settings["methods"] == "all"


def test_the_figure_has_a_line_per_method():
    import hpceval.views
    from hpceval.views.registry import FIGURES
    hpceval.views.load()
    recs = [{"benchmark": "shmem-halo", "metric": "latency", "unit": "us", "better": "lower",
             "statistic": "median", "stats": {"median": 1.0 + i + w / 100, "n": 10},
             "params": {"method": m, "words": w, "nranks": 2, "grid": "2x1"}}
            for i, m in enumerate(METHODS) for w in (1, 16, 256)]
    [fig] = [f for f in FIGURES if f.benchmark == "shmem-halo"]
    [ax] = fig.make([{"id": 1, "records": recs, "launches": [], "fingerprint": {}}]).axes
    assert len(ax.get_lines()) == len(METHODS)
    assert ax.get_xscale() == "log" and "neighbours" in ax.get_xlabel()
    assert "Fig. 8.1" in fig.title
    assert fig.make([{"records": []}]) is None


def test_run_twice_and_compare(cli):
    doc = run_twice_and_compare(cli, "shmem-halo", [*FAST, "--set", "shmem-halo.sizes=8",
                                                    "--set", "shmem-halo.methods=mpi,shmem-flag"])
    assert len([r for r in doc["rows"] if r["benchmark"] == "shmem-halo"]) == 4
