"""Running the kernel binaries directly (1 rank, as hpceval launches them by default)."""
import subprocess

from hpceval.records import parse_record

QUICK = ["--budget", "0.02", "--min-reps", "2", "--max-reps", "3", "--warmup", "0"]


def run(bindir, name, *args, timeout=120):
    p = subprocess.run([str(bindir / f"hpceval-{name}"), *args], capture_output=True, text=True,
                       timeout=timeout, stdin=subprocess.DEVNULL)
    recs = [parse_record(l) for l in p.stdout.splitlines() if l.strip()]
    return p, recs


def results(recs, metric=None):
    return [r for r in recs if r["type"] == "result" and metric in (None, r["metric"])]


def mpirun(name, np_, *args, timeout=60):
    """hpceval-NAME on np_ ranks under mpirun (oversubscribed on this machine, as root where
    needed); np_ 0: the binary alone (an MPI singleton, one rank: no mpirun teardown delay after
    a non-zero exit). Returns the process and its records."""
    import os
    from helpers import BIN
    cmd = [str(BIN / f"hpceval-{name}"), *args]
    if np_:
        root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
        cmd = ["mpirun", *root, "--oversubscribe", "-np", str(np_), *cmd]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       stdin=subprocess.DEVNULL)
    return p, [parse_record(l) for l in p.stdout.splitlines() if l.strip().startswith("{")]


def mpich_run(name, np_, *args, timeout=60):
    """hpceval-NAME of the MPICH build on np_ ranks under mpiexec.mpich; its process and
    records."""
    import shutil
    import pytest
    from helpers import ROOT
    binary = ROOT / "build-mpich" / "bin" / f"hpceval-{name}"
    if not shutil.which("mpiexec.mpich") or not binary.is_file():
        pytest.fail("MPICH or build-mpich/ missing: 'make build-mpich' (make test does)")
    p = subprocess.run(["mpiexec.mpich", "-n", str(np_), str(binary), *args],
                       capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    return p, [parse_record(l) for l in p.stdout.splitlines() if l.startswith("{")]


def assert_check_fails(p, recs, msg):
    """A verification that failed: exit 1, one error record saying msg, no result."""
    assert p.returncode == 1, p.stderr
    [err] = [r for r in recs if r["type"] == "error"]
    assert msg in err["message"]
    assert not [r for r in recs if r["type"] == "result"]


def assert_usage_error(p, msg, alone):
    """A bad option: exit 2, the reason on the first line of stderr; a binary run alone (no
    mpirun, which adds its own report after it) says that one line only."""
    assert p.returncode == 2
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    assert msg in lines[0], p.stderr
    if alone:
        assert len(lines) == 1, p.stderr


def assert_phases_within_loop(rec, names=None):
    """Every rank reports the phases (`names`, default all), and they (disjoint intervals of its
    timed loop) add up to no more than its loop time, under any load: a time slice lost between
    two phase timers on a busy host broke a cover held to 2-5% (6.7% beside another test). That
    they cover the loop is held where only the planted network enters the time
    (tests/simulate/test_phases_planted.py). The records' 6 significant digits are the slack."""
    phases, wall = rec["phases"], rec["wall_per_rank"]
    names = list(phases) if names is None else list(names)
    assert all(len(phases[n]["per_rank"]) == len(wall) for n in names), (phases, wall)
    for r, w in enumerate(wall):
        total = sum(phases[n]["per_rank"][r] for n in names)
        assert 0 < total <= w * (1 + 1e-5), (r, phases, wall)
