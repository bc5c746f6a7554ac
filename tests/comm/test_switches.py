"""Protocol switches found by the ping-pong's adaptive refinement (csrc/comm/lib/refine.c),
with two eager limits of Open MPI's shared-memory transport: the SP2 study's test, which the
old fixed grid put one grid point late (or, with a 16 KiB limit, at 2-4 KiB)."""
import os
import subprocess

import pytest

from helpers import CLI
from hpceval.analysis.commmodel import switches


def _openmpi() -> bool:
    try:
        out = subprocess.run(["mpirun", "--version"], capture_output=True, text=True, timeout=30)
    except OSError:
        return False
    return "Open MPI" in out.stdout + out.stderr


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


# 16 KiB: NOT reliable (#25 stays open). On this VM's shared memory, with the limit raised to
# 16 KiB, the eager copy costs about what the rendezvous does: quiet, the switch is a 0.2 us step
# (2.29 -> 2.49 us) in some launches, a bend with no step in others (16128 B eager 2.73 us,
# 16384 B rendezvous 2.98), while single points flip by 15% (13792 B 2.30 us, 13808 B 1.93) and
# the eager side steps 5-10% at sizes of its own (1.3, 2.4, 6.6, 10.4 KiB). A sweep bracketed it
# in 5 of 12 quiet runs (2026-11-26). Probing the protocol instead (MPI_Send with the receive
# posted late) does not separate them on Open MPI's vader: its sends above the fast-box size
# wait for the receiver in both protocols. So it runs only with HPCEVAL_TIMING_TESTS=1.
SIXTEEN_K = pytest.param(16384, marks=pytest.mark.skipif(
    os.environ.get("HPCEVAL_TIMING_TESTS") != "1",
    reason="not reliable on this VM (#25, open): run with HPCEVAL_TIMING_TESTS=1"))


@pytest.mark.alone
@pytest.mark.skipif(not _openmpi(), reason="the eager limit is set through Open MPI's vader BTL")
@pytest.mark.parametrize("limit", [4096, SIXTEEN_K])
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
