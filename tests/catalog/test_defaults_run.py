"""Every benchmark runs once with its catalog defaults (#33): `hpceval run stream --set
n=1000000` once failed on every launch, its default max-reps 1000 against the binary's limit of
200. Only a benchmark's declared `tiny` settings (sizes, so that a launch takes about a second)
replace its defaults; repetition control, budgets and every other parameter are the catalog's.
The experiments that plan stream's launches run with its defaults too, and an experiment's
default variants that this machine cannot run are left out and said."""
from __future__ import annotations

import os

from hpceval.catalog import BENCHMARKS
from hpceval.catalog.common import REPETITION_NAMES

# CLI switches, not catalog defaults: the cache probe and re-measuring are tested elsewhere
# (tests/runner/test_llcprobe.py, test_remeasure.py).
SWITCHES = ["--no-remeasure", "--llc", "reported"]
SLOW_LAUNCH_S = 20.0      # a launch beyond this needs (more) tiny settings


def tiny_sets(*names: str) -> list:
    return [w for n in names for s in BENCHMARKS[n].tiny for w in ("--set", f"{n}.{s}")]


def test_tiny_settings_leave_the_defaults_alone():
    for name, bench in BENCHMARKS.items():
        for setting in bench.tiny:
            key = setting.split("=", 1)[0]
            assert bench.has_param(key), f"{name}.tiny: no parameter '{key}'"
            assert key not in REPETITION_NAMES, f"{name}.tiny sets {key}: that is no size"
            bench.param(key).parse(setting.split("=", 1)[1])


def test_every_benchmark_runs_with_its_defaults(cli, bindir):
    names = sorted(BENCHMARKS)
    p = cli("run", *names, "--np", "2", *SWITCHES, *tiny_sets(*names), timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    (run,) = cli.export("latest")
    assert run["status"] == "ok"
    assert {r["benchmark"] for r in run["records"]} == set(names)
    for launch in run["launches"]:
        assert launch["status"] == "ok", (launch["command"], launch.get("message"))
        assert launch["elapsed_s"] < SLOW_LAUNCH_S, \
            f"{launch['label']} took {launch['elapsed_s']:.0f} s: give {launch['benchmark']} tiny settings"


def test_experiments_on_stream_run_with_its_defaults(cli, bindir):
    for kind, two in (("binding", "consecutive,default"), ("copies", "1,2"), ("pages", "base,thp")):
        p = cli("experiment", kind, "stream", "--rounds", "1", "--variants", two,
                *tiny_sets("stream"),
                "--set", "threads=1" if kind == "binding" else "bind=close", timeout=300)
        assert p.returncode == 0, (kind, p.stderr[-2000:])
    runs = cli.export()
    assert len(runs) == 3 and all(r["status"] == "ok" for r in runs)


def test_default_variants_that_cannot_run_here_are_left_out_and_said(cli, bindir):
    """`experiment binding psst --np 2` on 2 CPUs: alternating binding needs 3; the other
    defaults run and the note says why alternating did not. Asked for by name, it is refused
    (tests/experiment/test_kind_binding.py)."""
    cpus = len(os.sched_getaffinity(0))
    n = cpus // 2 + 1 + cpus % 2      # more ranks than every other CPU
    p = cli("experiment", "binding", "pingpong", "--np", str(n), "--rounds", "1",
            *tiny_sets("pingpong"), timeout=300)
    assert p.returncode == 0, p.stderr
    assert "default variant 'alternating' left out" in p.stdout.replace("\n", " ")
    (run,) = cli.export("latest")
    assert run["settings"]["experiment"]["variants"] == ["consecutive", "default"]
    assert any("alternating" in note for note in run["settings"]["experiment"]["notes"])
