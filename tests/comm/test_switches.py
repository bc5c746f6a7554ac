"""Protocol switches found by the ping-pong's adaptive refinement (csrc/comm/lib/refine.c),
with Open MPI's shared-memory eager limit at 4 KiB: the SP2 study's test, which the
old fixed grid put one grid point late (or, with a 16 KiB limit, at 2-4 KiB). The eager limit
itself is the eager benchmark's (test_eager.py)."""

import pytest

from helpers import CLI
from helpers_comm import openmpi
from hpceval.analysis.commmodel import switches


def _brackets(tmp_path, limit: int, attempt: int):
    cli = CLI(tmp_path / f"r{attempt}.sqlite")
    p = cli("run", "pingpong", "--set", "sizes=512,1K,2K,4K,8K,16K,32K,64K", "--set",
            "budget=0.5", "--set", "ci-target=0.01", "--no-remeasure",
            env={"OMPI_MCA_btl_vader_eager_limit": str(limit)})
    assert p.returncode == 0, p.stderr
    [run] = cli.export()
    refined = [r for r in run["records"] if (r.get("extra") or {}).get("refined")]
    assert 0 < len(refined) // 2 <= 24            # latency and bandwidth per added size
    return [(s.n_before, s.n_after) for s in switches(run)]


# Only 4 KiB: with the limit raised to 16 KiB, this VM's shared memory makes the eager copy cost
# about what the rendezvous does, and the latency curve steps by 0.2 us (2.29 -> 2.49 us) in some
# launches and not at all in others, while single points flip by 15%: no sweep of latencies can
# bracket it every time (5 of 12 quiet runs did). The eager benchmark measures what tells the
# protocols apart, the time a late receive takes, and brackets 16 KiB every time
# (tests/comm/test_eager.py).
@pytest.mark.alone
@pytest.mark.skipif(not openmpi(), reason="the eager limit is set through Open MPI's vader BTL")
@pytest.mark.parametrize("limit", [4096])
def test_the_eager_limit_is_bracketed_to_16_bytes(tmp_path, bindir, limit):
    # The message header makes the switch fall a little below the limit (4032 / 4048 B for
    # 4096 here): within 128 bytes under it, bracketed to the 16-byte resolution. The bisection
    # compares only points measured together (each midpoint between fresh checks of its ends):
    # comparing with ends measured seconds earlier, in another state of the machine (the eager
    # side runs 2-4x slower on a busy machine, the rendezvous side barely), sent bisections the
    # wrong way (likely what bracketed 3456-3488 B in three CI sweeps). A sweep is measured up to
    # three times, as a user would repeat a disturbed measurement. The refinement narrows the
    # suspect that bends most first (a drop before anything): 4 KiB in 12 of 12 quiet sweeps.
    seen = []
    for attempt in range(3):
        found = _brackets(tmp_path, limit, attempt)
        seen.append(found)
        if any(limit - 128 <= a < b <= limit and b - a <= 16 for a, b in found):
            return
    pytest.fail(f"eager limit {limit} not bracketed in three sweeps: {seen}")


def test_refinement_can_be_switched_off(tmp_path, bindir):
    cli = CLI(tmp_path / "r.sqlite")
    p = cli("run", "pingpong", "--set", "sizes=1K,2K,4K,8K,16K", "--set", "refine=0",
            "--set", "budget=0.05", "--no-remeasure")
    assert p.returncode == 0, p.stderr
    [run] = cli.export()
    assert sorted({r["params"]["bytes"] for r in run["records"]}) == [1024, 2048, 4096, 8192, 16384]
