"""The benchmark binaries on their own: option errors, help, valid records, failing checks.
(Real processes; the MPI ones under the same launcher hpceval uses.)"""
import json
import subprocess

import pytest

from hpceval.launch import find_launcher
from hpceval.records import parse_record

BINARIES = ("pingpong", "mem-latency", "stream")
TINY = {"pingpong": ["--sizes", "0,8,4K"], "mem-latency": ["--sizes", "4K,64K"],
        "stream": ["--n", "100000", "--threads", "2"]}
QUICK = ["--budget", "0.05", "--min-reps", "3", "--max-reps", "10", "--warmup", "1"]


def launch(bindir, name, args, nranks=None, timeout=120):
    nranks = nranks or (2 if name == "pingpong" else 1)
    launcher = find_launcher("auto", 2)
    cmd = launcher.command(nranks, [str(bindir / f"hpceval-{name}"), *args],
                           "core" if name != "stream" else "none", {})
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("name", BINARIES)
@pytest.mark.parametrize("args,message", [
    (["--bogus", "1"], "unknown option '--bogus'"),
    (["--ci-target", "5"], "option --ci-target: 5 is out of range [0.0001, 1]"),
    (["--budget", "fast"], "option --budget: value 'fast'"),
    (["--min-reps", "-2"], "option --min-reps"),
    (["--inject", "maybe"], "option --inject"),
])
def test_bad_options(bindir, name, args, message):
    p = subprocess.run([str(bindir / f"hpceval-{name}"), *args], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2
    [line] = [l for l in p.stderr.splitlines() if l.strip()]
    assert line.startswith(f"hpceval-{name}: error: ") and message in line
    rec = parse_record(p.stdout.strip().splitlines()[-1])
    assert rec["type"] == "error" and message in rec["message"]


@pytest.mark.parametrize("name", BINARIES)
def test_help(bindir, name):
    p = subprocess.run([str(bindir / f"hpceval-{name}"), "--help"], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0 and "--budget" in p.stdout and "--ci-target" in p.stdout


@pytest.mark.parametrize("name", BINARIES)
def test_output_is_valid_records(bindir, name):
    p = launch(bindir, name, TINY[name] + QUICK)
    assert p.returncode == 0, p.stderr
    recs = [parse_record(l) for l in p.stdout.splitlines()]
    assert recs[0]["type"] == "meta" and recs[-1]["type"] == "end"
    meta = recs[0]
    assert meta["timer"]["resolution_ns"] > 0 and meta["cflags"] and meta["mpi_library"]
    results = [r for r in recs if r["type"] == "result"]
    assert results and all(r["check"] == "ok" and r["stats"]["n"] >= 1 for r in results)


def test_pingpong_values_are_consistent(bindir):
    p = launch(bindir, "pingpong", ["--sizes", "1K"] + QUICK)
    recs = {r["metric"]: r for r in map(json.loads, p.stdout.splitlines()) if r["type"] == "result"}
    lat, bw = recs["latency"]["stats"], recs["bandwidth"]["stats"]
    # bandwidth samples are bytes / latency samples: their extremes mirror each other
    assert bw["max"] == pytest.approx(1024 / lat["min"], rel=1e-4)
    assert bw["min"] == pytest.approx(1024 / lat["max"], rel=1e-4)


def test_pingpong_needs_two_ranks(bindir):
    p = launch(bindir, "pingpong", QUICK, nranks=1)
    assert p.returncode == 2 and "needs at least 2 MPI ranks" in p.stdout


@pytest.mark.parametrize("name", BINARIES)
def test_corrupted_data_fails_the_check(bindir, name):
    p = launch(bindir, name, TINY[name] + QUICK + ["--inject", "corrupt"])
    assert p.returncode == 1, (p.stdout, p.stderr)
    errors = [r for r in map(json.loads, p.stdout.splitlines()) if r["type"] == "error"]
    assert errors and "check failed" in errors[0]["message"]
    assert not [l for l in p.stdout.splitlines() if '"type": "end"' in l]


@pytest.mark.parametrize("name,args", [("mem-latency", ["--sizes", "100G"]),
                                       ("stream", ["--n", "8000000000"])])
def test_impossible_working_set_is_refused_before_allocating(bindir, name, args):
    p = launch(bindir, name, args + QUICK)
    assert p.returncode == 2
    assert "exceeds 80% of MemAvailable" in p.stdout or "exceed 80% of MemAvailable" in p.stdout
