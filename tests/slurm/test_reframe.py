"""packaging/reframe on the Slurm virtual cluster: ReFrame (on node1, as on a login node) submits
the quick check with sbatch across both nodes (tests/slurm/reframe_vcluster_settings.py); it
passes, hpceval measured on both nodes, and the perflog of the partition holds the figures; a
forced regression fails the ReFrame run."""
from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

from helpers import FAST, perflog, reframe_argv

SETTINGS = Path(__file__).resolve().parent / "reframe_vcluster_settings.py"
QUICK = ["num_tasks_per_node=1",
         "options=" + " ".join(FAST + ["--set", "pingpong.refine=0",
                                       "--set", "mem-latency.sizes=4K,64K,1M",
                                       "--set", "mem-latency.window=0",
                                       "--set", "stream.n=1000000"])]


def _reframe(slurm, prefix, *settings):
    # `vcluster exec` joins the words in a shell (as ssh does): quote each once more.
    argv = [*reframe_argv(prefix, "HpcevalQuick", *settings), "-C", str(SETTINGS)]
    return slurm.run("exec", "node1", *(f"'{w}'" for w in argv), timeout=240)


def test_quick_check_as_a_slurm_job_on_both_nodes(slurm):
    prefix = slurm.cluster.path / "reframe-pass"
    proc = _reframe(slurm, prefix, *QUICK)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "@vcluster:debug+builtin" in out and "PASSED" in out
    [db] = prefix.glob("stage/**/hpceval.sqlite")
    c = sqlite3.connect(db)
    hosts = {h for (meta,) in c.execute("SELECT meta FROM launches") for h in
             json.loads(meta)["hosts"]}
    c.close()
    assert hosts == {"node1", "node2"}                # hpceval ran inside the job's allocation
    row = perflog(prefix / "perflogs" / "vcluster" / "debug" / "HpcevalQuick.log")
    assert row["result"] == "pass" and row["job_nodelist"] == "node1,node2"
    for name in ("ping_pong_latency_8_b", "ping_pong_bandwidth_1_mib", "stream_triad_best_1_thread"):
        assert math.isfinite(float(row[f"{name}_value"])), name


def test_a_forced_regression_fails_the_slurm_run(slurm):
    prefix = slurm.cluster.path / "reframe-regression"
    prefix.mkdir()
    refs = prefix / "refs.json"
    refs.write_text(json.dumps({"vcluster:debug": {"ping_pong_latency_8_b": [1e-6, 0.1]}}))
    proc = _reframe(slurm, prefix, *QUICK[:1], "suite=pingpong", f"references_file={refs}",
                    "options=" + " ".join(FAST + ["--set", "sizes=8", "--set", "refine=0"]))
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "FAILED" in out, out
    assert "ping_pong_latency_8_b" in out[out.index("FAILURE INFO"):]
    row = perflog(prefix / "perflogs" / "vcluster" / "debug" / "HpcevalQuick.log")
    assert row["result"] == "fail" and float(row["ping_pong_latency_8_b_ref"]) == 1e-6
