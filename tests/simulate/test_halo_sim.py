"""halo (csrc/comm/halo.c) under SMPI on grids one rank wide: every method's ghosts checked,
puts to the rank itself included. SMPI 3.32 skips a copy whose source and target addresses are
equal, so a put from a subarray into the same window at displacement 0 moved nothing (the
study's 2-rank halo failed its data check); the put now targets the ghosts' displacement."""
import pytest

SMALL = ["--set", "budget=0.001", "--no-remeasure", "--set", "halo.tile=8",
         "--set", "halo.widths=1,3", "--set", "halo.methods=all"]


@pytest.mark.parametrize("ranks,grid", [(1, "1x1"), (2, "2x1")])
def test_every_method_fills_its_ghosts(sim, ranks, grid):
    p = sim("run", "halo", "--simulate", f"nodes=1,ppn={ranks}", "--set", f"halo.nranks={ranks}",
            *SMALL, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    run, = sim.export("latest")
    got = {(r["params"]["method"], r["params"]["neighbours"], r["params"]["width"])
           for r in run["records"] if r["metric"] == "latency"}
    assert got == {(m, n, w) for m in ("pack", "datatype", "put") for n in (4, 8) for w in (1, 3)}
    assert {r["params"]["grid"] for r in run["records"]} == {grid}


def test_a_wrong_ghost_is_caught(sim):
    p = sim("run", "halo", "--simulate", "nodes=1,ppn=2", "--set", "halo.nranks=2", *SMALL,
            "--set", "halo.inject=corrupt", timeout=120)
    assert p.returncode != 0 and "data check failed: halo pack" in p.stderr
