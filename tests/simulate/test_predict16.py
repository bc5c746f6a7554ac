"""`hpceval predict` beyond 2 ranks on a simulated platform (benchmarks/smpi_predict.py at 16
ranks, barotropic and sweep): the machine's 2-rank ping-pong, its distance map and the proxy's
one-rank run predict the 16-rank run, and the prediction is put beside the simulated
measurement of the same grid.

Two causes moved the simulated run away from the model, measured apart (2026-11-26, this
platform, 16x1 grid, us per iteration): this 16-node tree's leaves hold 4 nodes, so the
halo's wrap-around partner and the allreduce's last two steps cross its second level (two
links more than ranks 0-1); and with computation charged (the platform's default) SMPI charges
a burst the CPU time it took on this host, so on a loaded host a preempted rank stalls the
others at the next global sum. Charged: simulated 31.0, model 18.2 (-41%), with the distance
map 26.0 (-16%). compute=none: simulated 22.1, model 15.7 (-29%: the fat tree alone), with the
distance map 23.5 (+6%). The test runs compute=none, so the host's load does not reach
simulated time, and reads the distance map: the prediction is then the same in every run,
held to 2% (-0.8%; #53: the real-machine tests' 5% moved here).

sweep (32x32x16, S4, mk 4, mmi 3) the same way, with LogGP (its two faces leave at once): the
code's 4x4 grid simulated 57.0 us per iteration, the model 63.6 (+11.5%, its best grid 8x2);
barotropic then -0.8% (2026-11-26, eager messages up to 64 KiB: docs/simulate.md)."""
import json
import math

DESC = "nodes=16,ppn=1,latency=1.5us,bandwidth=25GBps,topology=fat-tree,compute=none"
SMALL = ["--set", "budget=0.001", "--set", "min-reps=2", "--set", "max-reps=3",
         "--set", "warmup=0", "--no-remeasure"]
BARO = ["--set", "grids=128x128", "--set", "land=none", "--set", "halos=pack",
        "--set", "sums=allreduce", "--set", "mappings=row"]
SWEEP = ["--set", "grid=32x32x16", "--set", "sn=4", "--set", "mk=4", "--set", "mmi=3"]


def test_barotropic_and_sweep_predicted_at_16_simulated_ranks(sim):
    # LogGP: a pipeline's two faces leave at once (one latency a hop, the rest overheads)
    for args in (["pingpong", "loggp", "--np", "2", "--set", "pingpong.sizes=8,64,512,4K,32K,256K",
                  "--set", "refine=0", "--set", "loggp.sizes=8,1M", "--set", "loggp.budget=0.01"],
                 ["barotropic", *BARO, "--set", "ranks=1"],
                 ["barotropic", *BARO, "--set", "ranks=16", "--set", "pgrids=16x1,4x4"],
                 ["distance", "--np", "16", "--set", "sizes=8"],
                 ["sweep", *SWEEP, "--set", "ranks=1"], ["sweep", *SWEEP, "--set", "ranks=16"]):
        p = sim("run", *args, "--simulate", DESC, *SMALL, timeout=300)
        assert p.returncode == 0, p.stderr[-2000:]
    p = sim("predict", "barotropic", "--grid", "128x128", "--ranks", "16", "--json")
    assert p.returncode == 0, p.stderr[-2000:]
    out = json.loads(p.stdout)
    row, = out["rows"]
    assert row["grid"] in ("16x1", "4x4") and row["measured_in_run"] == 3, row
    assert "LogGP" in out["sources"]["message time"], out["sources"]
    assert out["sources"]["ranks apart"].startswith("distance map (8 B, rank 0 to 15 ranks)")
    assert out["sources"]["allreduce at 16 ranks"] == "modelled from the message time"
    # simulated time is deterministic: the model's own miss, -0.8%, held to 2%
    assert math.isfinite(row["error"]) and abs(row["error"]) < 0.02, row
    # communication dominates at 16 ranks: the model says so too
    assert row["parts"]["global sums"] > row["parts"]["compute"], row
    # sweep: the octant order's fills (3 east, 4 north) on the 4x4 grid the code picks, its
    # faces eager; the model's grid may differ (the measured column is the best run)
    p = sim("predict", "sweep", "--grid", "32x32x16", "--set", "sn=4", "--set", "mk=4",
            "--set", "mmi=3", "--ranks", "16", "--json")
    assert p.returncode == 0, p.stderr[-2000:]
    row, = json.loads(p.stdout)["rows"]
    # the model's grid is not the code's (above): +11.5%, held to 15%
    assert math.isfinite(row["error"]) and abs(row["error"]) < 0.15, row
    assert row["parts"]["pipeline fill"] > row["parts"]["messages"], row
