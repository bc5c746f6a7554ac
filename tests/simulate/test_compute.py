"""compute=none: SMPI charges no computation, so simulated time is the network's alone (the
predictions' check on a loaded host, benchmarks/smpi_predict.py --compute none)."""
import json


def test_compute_none_charges_no_computation(sim):
    p = sim("run", "barotropic", "--simulate", "nodes=1,compute=none", "--set", "ranks=1",
            "--set", "grids=96x64", "--set", "land=none", "--set", "halos=pack",
            "--set", "sums=allreduce", "--set", "mappings=row", "--set", "budget=0.001",
            "--set", "min-reps=2", "--set", "max-reps=3", "--no-remeasure", timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    run, = sim.export("1")
    sims = run["fingerprint"]["simulated"]
    assert sims["description"]["compute"] == "none", sims
    rec = next(r for r in run["records"] if r["metric"] == "iteration_time")
    # 6,144 points of a 9-point operator: microseconds when charged, nothing here
    assert rec["extra"]["phases"]["compute"]["per_rank"][0] < 0.1, rec["extra"]["phases"]
