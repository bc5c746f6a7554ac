"""A --budget is kept inside launches (#44): the launch under way when it runs out is ended
(BUDGET_GRACE_S after it, as a launch at its time limit is), keeps the records it wrote and is
marked as ended by the budget, not as a hang; the launches after it are left out and said. Real
mpirun, real ranks: a ping-pong whose 4 MiB points take far longer than the plan expects
(--min-reps, which the estimate does not count), as on a machine slower than the estimates."""
from __future__ import annotations

import subprocess
import sys
import time

from helpers import FAST, new_token, one_line_error, processes_of, wait_for
from hpceval.runner.session import BUDGET_GRACE_S

BUDGET_S = 10.0
# From the command's start to run_plan's first line (Python's start-up, imports, arguments:
# 0.4-0.9 s here), and after the end of the budget: the grace, ending the launch (mpirun takes
# 0.1-1.1 s to go after SIGTERM) and storing it. The limit itself is a timer and a kill, not the
# machine's speed, so load lengthens only these: 11.8-14.4 s in 20 runs beside a busy loop and
# the other worker's tests. Uncut, the launch would take 18 s at the very least.
SLACK_S = 5.0
# An 8-byte point (a sample: a 50 us batch; 3 ms beside a busy pair of ranks, so 3 s), then
# twelve 4 MiB points of 1000 samples (each a round trip between buffers prepared and checked:
# 1.5 ms or more on a quiet machine, 90 ms on a busy one): 18 s at the very least.
SLOW = ["--set", "pingpong.sizes=8," + ",".join(str((4 << 20) - 8 * i) for i in range(12)),
        "--set", "pingpong.refine=0", "--set", "pingpong.min-reps=1000",
        "--set", "pingpong.max-reps=1000", "--set", "pingpong.budget=0.3"]


def test_a_budget_ends_the_launch_under_way_and_keeps_its_records(cli, bindir):
    token = new_token()
    start = time.monotonic()
    p = subprocess.run([*cli.argv(), "run", "pingpong", "column", *FAST, *SLOW,
                        "--budget", f"{BUDGET_S:g}s"], capture_output=True, text=True,
                       env=cli.env(token), timeout=120, stdin=subprocess.DEVNULL)
    wall = time.monotonic() - start
    print(f"run --budget {BUDGET_S:g}s: {wall:.1f} s", file=sys.stderr)   # (pytest -s)
    assert p.returncode == 0, p.stderr
    assert wall <= BUDGET_S * 1.1 + SLACK_S, f"{wall:.1f} s for a {BUDGET_S:g} s budget"
    assert wall >= BUDGET_S, "the launch was ended before the budget was spent"
    warning = one_line_error(p.stderr)
    assert warning.startswith("hpceval: warning: run 1 incomplete: stopped at the end of the "
                              "--budget: pingpong np=2 was ended after"), warning
    assert warning.endswith("left out 1 launch: column"), warning
    [run] = cli.export()
    assert run["status"] == "incomplete" and run["settings"]["left_out"] == ["column"]
    [cut] = run["launches"]
    assert cut["status"] == "interrupted" and "--budget" in cut["message"], cut
    assert cut["elapsed_s"] <= BUDGET_S + BUDGET_GRACE_S + SLACK_S, cut
    kept = [r for r in run["records"] if r["benchmark"] == "pingpong"]
    assert 8 in {r["params"]["bytes"] for r in kept}, kept
    assert f"({len(kept)} records kept)" in cut["message"]
    assert wait_for(lambda: not processes_of(None, token), 10), "a launch's process is left"



def test_only_a_simulated_launch_has_its_own_limit_under_a_budget():
    """Session._limit: under a --budget a simulated launch's limit is also its own (its estimate,
    SMPI's cost included, three times over plus 2 s), a real launch's only the budget's end."""
    import types
    from hpceval.catalog import LaunchSpec
    from hpceval.catalog.estimate import own_limit_s
    from hpceval.runner.session import Session
    spec = LaunchSpec("pingpong", "pingpong np=2", "pingpong", [], 2, "core", timeout_s=30.0,
                      estimate_s=1.0, startup_s=0.5)
    own = own_limit_s(spec)
    assert 3.0 <= own < 20.0
    for sim_cost, want in ((None, False), (object(), True)):
        fake = types.SimpleNamespace(deadline=time.monotonic() + 600, timeout_s=None,
                                     ctx=types.SimpleNamespace(sim_cost=sim_cost))
        limit, by_budget = Session._limit(fake, spec)
        assert (limit == own and not by_budget) if want else (limit > 590 and by_budget)
    fake.deadline = time.monotonic() + 1.0           # the budget's end first, either way
    assert Session._limit(fake, spec)[1]
