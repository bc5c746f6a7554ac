"""The ping-pong's adaptive refinement (csrc/comm/lib/refine.c) on this machine: what it adds and
the brackets read from it. Where it brackets a switch is held on a planted platform
(tests/simulate/test_protocols.py: the handshake's step at exactly the planted limit); here,
with Open MPI's shared-memory eager limit at 4 KiB, the step it brackets depends on the
machine's state (12 of 12 quiet sweeps at 4032-4048 B, CI sweeps at 3456-3488 B:
benchmarks/eager_limits.py, docs/eager.md). The eager limit itself is the eager benchmark's
(test_eager.py)."""

from helpers import CLI
from helpers_comm import bracket_ok
from hpceval.analysis.commmodel import refined_sizes, switches

SWEEP = [512 << i for i in range(8)]        # 512 B .. 64 KiB


def test_refinement_adds_sizes_between_the_sweep_s(tmp_path, bindir):
    cli = CLI(tmp_path / "r.sqlite")
    p = cli("run", "pingpong", "--set", "sizes=" + ",".join(map(str, SWEEP)), "--set",
            "budget=0.05", "--no-remeasure", env={"OMPI_MCA_btl_vader_eager_limit": "4096"})
    assert p.returncode == 0, p.stderr
    [run] = cli.export()
    refined = refined_sizes(run, "pingpong")
    sizes = {r["params"]["bytes"] for r in run["records"]}
    assert sizes - refined == set(SWEEP), sorted(sizes)
    # each added size is measured for latency and bandwidth, within the sweep, 24 at most
    assert 0 < len(refined) <= 24 and all(SWEEP[0] < n < SWEEP[-1] for n in refined), refined
    assert all(bracket_ok(s, refined) for s in switches(run)), switches(run)


def test_refinement_can_be_switched_off(tmp_path, bindir):
    cli = CLI(tmp_path / "r.sqlite")
    p = cli("run", "pingpong", "--set", "sizes=1K,2K,4K,8K,16K", "--set", "refine=0",
            "--set", "budget=0.05", "--no-remeasure")
    assert p.returncode == 0, p.stderr
    [run] = cli.export()
    assert sorted({r["params"]["bytes"] for r in run["records"]}) == [1024, 2048, 4096, 8192, 16384]
