"""`hpceval run --trace`: every launch runs under the PMPI trace library, its merged trace is
stored with the run (one track per rank) and exported; the results are stored as usual, with the
extra keys of their records (phase timers) kept."""
from hpceval.trace.chrome import tracks, validate

PSST = ["--set", "truncation=5", "--set", "levels=1", "--set", "mappings=row", "--set", "days=0.2",
        "--set", "budget=0.02", "--set", "min-reps=1", "--set", "max-reps=2", "--set", "warmup=0"]


def test_run_trace_stores_the_trace(cli):
    p = cli("run", "psst", "--np", "2", "--trace", *PSST)
    assert p.returncode == 0, p.stderr
    [run] = cli.export("latest")
    assert run["settings"]["trace"] is True
    [t] = run["traces"]
    assert t["benchmark"] == "psst" and t["label"] == run["launches"][0]["label"]
    validate(t["trace"])
    per_rank = tracks(t["trace"])
    assert sorted(per_rank) == [0, 1]
    for events in per_rank.values():
        names = {e["name"] for e in events}
        assert "transpose" in names or "global_sum" in names     # phases, via MPI_Pcontrol
        assert any(e["cat"] == "mpi" for e in events)
    times = [r for r in run["records"] if r["metric"] == "run_time"]
    assert times and all(len(r["extra"]["phases"]["fft"]["per_rank"]) == 2 for r in times)
    # the tracer's cost is in these times: they must not pass for untraced points
    assert all(r["params"]["traced"] is True for r in run["records"])


def test_untraced_run_stores_no_trace(cli):
    p = cli("run", "psst", "--np", "2", *PSST)
    assert p.returncode == 0, p.stderr
    [run] = cli.export("latest")
    assert run["traces"] == []
    assert not any("traced" in r["params"] for r in run["records"])


def test_stored_traces_are_capped(cli):
    """A stored trace keeps the first events of each rank and counts the rest as dropped."""
    p = cli("run", "psst", "--np", "2", "--trace", *PSST, env={"HPCEVAL_TRACE_MAX_EVENTS": "50"})
    assert p.returncode == 0, p.stderr
    [run] = cli.export("latest")
    other = run["traces"][0]["trace"]["otherData"]
    assert all(n <= 50 for n in other["events"]) and all(d > 0 for d in other["dropped_events"])
    assert run["records"]                         # the results are stored as usual
