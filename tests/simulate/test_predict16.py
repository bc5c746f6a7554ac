"""`hpceval predict` beyond 2 ranks on a simulated platform (benchmarks/smpi_predict.py at 16
ranks, barotropic only): the machine's 2-rank ping-pong and the proxy's one-rank run predict the
16-rank run, and the prediction is put beside the simulated measurement of the same grid. The
model leaves out the fat tree's second level (its partners beyond the leaf switch are two links
farther than ranks 0-1) and SMPI charges no computation burst under 10 us, so it is low by about
30% here (docs/simulate.md, "Predictions beyond 2 ranks"); 50% bounds that, a factor of two the
models' known misses at 64-256 ranks."""
import json
import math

DESC = "nodes=16,ppn=1,latency=1.5us,bandwidth=25GBps,topology=fat-tree"
SMALL = ["--set", "budget=0.001", "--set", "min-reps=2", "--set", "max-reps=3",
         "--set", "warmup=0", "--no-remeasure"]
BARO = ["--set", "grids=128x128", "--set", "land=none", "--set", "halos=pack",
        "--set", "sums=allreduce", "--set", "mappings=row"]


def test_barotropic_predicted_at_16_simulated_ranks(sim):
    for args in (["pingpong", "--np", "2", "--set", "sizes=8,64,512,4K,32K,256K", "--set", "refine=0"],
                 ["barotropic", *BARO, "--set", "ranks=1"],
                 ["barotropic", *BARO, "--set", "ranks=16", "--set", "pgrids=16x1,4x4"]):
        p = sim("run", *args, "--simulate", DESC, *SMALL, timeout=300)
        assert p.returncode == 0, p.stderr[-2000:]
    p = sim("predict", "barotropic", "--grid", "128x128", "--ranks", "16", "--json")
    assert p.returncode == 0, p.stderr[-2000:]
    out = json.loads(p.stdout)
    row, = out["rows"]
    assert row["grid"] in ("16x1", "4x4") and row["measured_in_run"] == 3, row
    assert "ping-pong" in out["sources"]["message time"], out["sources"]
    assert out["sources"]["allreduce at 16 ranks"] == "modelled from the message time"
    assert math.isfinite(row["error"]) and abs(row["error"]) < 0.5, row
    # communication dominates at 16 ranks: the model says so too
    assert row["parts"]["global sums"] > row["parts"]["compute"], row
