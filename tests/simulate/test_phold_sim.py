"""phold's null-message engine under SMPI (csrc/nas/lib/phold_sync.c). A rank spun on MPI_Test
for its batch in flight while it received with MPI_Iprobe; under SMPI that loop livelocked: a
launch whose first point used null messages never ended (3.32), and SimGrid 4.1 took minutes
for the study's 16-rank launch that 3.32 ran in 18 s. No rank now waits for a send before the
next one."""


def test_null_messages_first_end_and_equal_the_sequential_run(sim):
    p = sim("run", "phold", "--simulate", "nodes=1,ppn=4", "--set", "phold.ranks=4",
            "--set", "phold.sync=null,yawns", "--set", "phold.lps=1024",
            "--set", "phold.end=2", "--set", "phold.lookahead=1", "--set", "phold.remote=0.5",
            "--set", "budget=0.001", "--no-remeasure", timeout=90)
    assert p.returncode == 0, p.stderr[-2000:]
    run, = sim.export("latest")
    rates = [r for r in run["records"] if r["metric"] == "event_rate"]
    assert {r["params"]["sync"] for r in rates} == {"null", "yawns"}
    assert all(r["extra"]["verified"] for r in rates), [r["extra"] for r in rates]
    assert len({(r["extra"]["events_committed"], r["extra"]["checksum"]) for r in rates}) == 1
