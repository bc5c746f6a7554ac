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
# 1.5 ms or more on a quiet machine, 90 ms on a busy one): 18 s at the very least. Its points'
# 0.3 s budgets plan it at 4.9 s, so its own limit (own_limit_s: 17 s) is past the budget's end.
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


# Three 4 MiB points of 10,000 samples each: 45 s at the very least uncut, planned at about
# 1.2 s (the plan counts each point's 0.05 s budget, not --min-reps).
RUNAWAY = ["--set", "pingpong.sizes=8," + ",".join(str((4 << 20) - 8 * i) for i in range(3)),
           "--set", "pingpong.refine=0", "--set", "pingpong.min-reps=10000",
           "--set", "pingpong.max-reps=10000"]


def test_a_launch_past_its_own_limit_under_a_budget_times_out_and_the_run_goes_on(cli, bindir):
    """Under a --budget a launch's limit is also its own (own_limit_s: its estimate, three
    times over), not the rest of the budget: the runaway ping-pong is killed near it, keeps its
    records, is said as a timeout with its estimate, and the next launch runs."""
    token = new_token()
    start = time.monotonic()
    p = subprocess.run([*cli.argv(), "run", "pingpong", "column", *FAST, *RUNAWAY,
                        "--budget", "60s"], capture_output=True, text=True,
                       env=cli.env(token), timeout=120, stdin=subprocess.DEVNULL)
    wall = time.monotonic() - start
    print(f"run --budget 60s, a runaway launch: {wall:.1f} s", file=sys.stderr)
    assert p.returncode != 0
    story = one_line_error(p.stderr)
    assert "pingpong np=2: killed at its own limit of" in story, story
    assert "under the --budget (estimated at" in story and "records kept" in story, story
    [run] = cli.export()
    assert run["status"] == "failed" and not run["settings"].get("left_out"), run["settings"]
    cut, after = run["launches"]
    limit = float(cut["message"].split("its own limit of ", 1)[1].split(" s", 1)[0])
    assert limit < 3 * cut["estimate_s"] + 3, cut     # own_limit_s: not the budget's 60 s
    assert cut["status"] == "timeout" and limit - 1 <= cut["elapsed_s"] <= limit + SLACK_S, cut
    assert after["label"] == "column" and after["status"] == "ok", after
    assert wall < 40, f"{wall:.1f} s: the runaway launch ate the budget"
    assert wait_for(lambda: not processes_of(None, token), 10), "a launch's process is left"
