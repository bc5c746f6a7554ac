"""`hpceval submit` on the Slurm virtual cluster: the quick suite as a batch job lands in the
database with both nodes and its job id; scancel marks the run cancelled and keeps what was
stored; bad input is refused in one line with Slurm's reason."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from helpers import ROOT, one_line_error

# Short budgets, small memory sets: the quick suite's launches in seconds on a busy machine.
SHORT = ["--set", "budget=0.05", "--set", "min-reps=3", "--set", "max-reps=20",
         "--set", "warmup=1", "--no-remeasure", "--llc", "reported", "--set", "pingpong.refine=0"]
QUICK = SHORT + ["--set", "mem-latency.sizes=4K,64K,1M", "--set", "mem-latency.window=0",
                 "--set", "stream.n=1000000"]
EVIL_TAG = "$(touch hacked-by-tag)"


def _db(slurm, name):
    return slurm.cluster.path / f"{name}.db"


def _query(db, sql, *args):
    c = sqlite3.connect(db)
    try:
        return c.execute(sql, args).fetchall()
    finally:
        c.close()


def _poll(db, sql):
    """_query while the job's driver may still be creating the database: nothing yet when the
    file or its tables are not there (a fresh-clone run read the file between the two)."""
    if not db.exists():
        return []
    try:
        return _query(db, sql)
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return []
        raise


def test_quick_suite_as_a_job(slurm):
    db = _db(slurm, "quick")
    t0 = time.monotonic()
    # The tag is quoted once more for `vcluster exec`, whose shell joins the words (as ssh).
    proc = slurm.hpceval(db, "submit", "quick", "--nodes", "2", "--wait", "--time", "5",
                         "--tag", f"'{EVIL_TAG}'", *QUICK, timeout=150)
    elapsed = time.monotonic() - t0
    print(f"quick suite: submit to result {elapsed:.1f} s")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "submitted job" in proc.stdout and "running" in proc.stdout
    (status, job, tags, settings), = _query(db, "SELECT status, job_id, tags, settings FROM runs")
    assert status == "ok" and job.isdigit() and EVIL_TAG in tags
    assert f'"job_id": "{job}"' in settings and "#SBATCH --nodes=2" in settings
    hosts = {h for (meta,) in _query(db, "SELECT meta FROM launches") for h in
             json.loads(meta)["hosts"]}
    assert hosts == {"node1", "node2"}
    assert not (ROOT / "hacked-by-tag").exists()
    runs = slurm.hpceval(db, "runs").stdout
    assert f"job={job}" in runs and " ok " in runs
    assert f"Slurm job {job}  partition debug  nodes node[1-2]" in slurm.hpceval(
        db, "show", "latest").stdout


def test_scancel_marks_the_run_cancelled(slurm):
    db = _db(slurm, "cancel")
    proc = slurm.hpceval(db, "submit", "pingpong", "mem-latency", "--nodes", "2", *SHORT,
                         "--set", "mem-latency.budget=5", "--set", "mem-latency.max-reps=100000",
                         # no early stop on a quiet machine: every size spends its budget
                         "--set", "mem-latency.ci-target=0.0001",
                         "--set", "mem-latency.sizes=4K,8K,16K,32K,64K,128K")
    assert proc.returncode == 0, proc.stderr
    (job,), = _query(db, "SELECT job_id FROM runs")
    deadline = time.monotonic() + 60
    while not _poll(db, "SELECT 1 FROM launches WHERE benchmark = 'pingpong'"):
        assert time.monotonic() < deadline, "the job's first launch never finished"
        time.sleep(0.3)
    time.sleep(1.0)                                   # mem-latency is under way
    slurm.on("node1", "scancel", job)
    assert slurm.job_gone(job)
    runs = slurm.hpceval(db, "runs").stdout
    assert f"job={job}" in runs and "cancelled" in runs, runs
    (status, reason), = _query(db, "SELECT status, reason FROM runs")
    assert status == "cancelled" and "CANCELLED" in reason
    assert _query(db, "SELECT count(*) FROM records r JOIN launches l ON l.id = r.launch_id"
                      " WHERE l.benchmark = 'pingpong'")[0][0] > 0


def test_a_killed_driver_s_run_takes_slurm_s_word_not_abandoned(slurm):
    # The job's hpceval SIGKILLed (Slurm's KillWait at a time limit, a user): the next hpceval on
    # its node marks the run abandoned; Slurm's final word on the job then says what happened.
    db = _db(slurm, "killed")
    proc = slurm.hpceval(db, "submit", "pingpong", "mem-latency", "--nodes", "2", *SHORT,
                         *NEVER_ENDS)
    assert proc.returncode == 0, proc.stderr
    deadline = time.monotonic() + 60
    while not _poll(db, "SELECT 1 FROM launches WHERE benchmark = 'pingpong'"):
        assert time.monotonic() < deadline, "the job's first launch never finished"
        time.sleep(0.3)
    (job, pid), = _query(db, "SELECT job_id, driver_pid FROM runs")
    os.kill(pid, signal.SIGKILL)            # the nodes share this machine's process IDs
    assert slurm.job_gone(job)
    runs = slurm.hpceval(db, "runs").stdout
    (status, reason), = _query(db, "SELECT status, reason FROM runs")
    assert status == "failed" and f"Slurm job {job} FAILED" in reason, (status, reason, runs)
    assert _query(db, "SELECT count(*) FROM records r JOIN launches l ON l.id = r.launch_id"
                      " WHERE l.benchmark = 'pingpong'")[0][0] > 0


def _refused(slurm, *args):
    db = _db(slurm, "bad")
    proc = slurm.hpceval(db, "submit", "pingpong", *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    return one_line_error(proc.stderr)


def test_bad_input_is_one_line_with_slurms_reason(slurm):
    assert "invalid partition specified: nope" in _refused(slurm, "--nodes", "1",
                                                           "--partition", "nope")
    assert "node configuration is not available" in _refused(slurm, "--nodes", "3")
    assert "--time: '1:xx': not one of Slurm's forms" in _refused(slurm, "--nodes", "1",
                                                                  "--time", "1:xx")
    assert "unrecognized option '--bogus'" in _refused(slurm, "--nodes", "1",
                                                      "--sbatch-arg=--bogus")
    # The refused job's run says why.
    rows = _query(_db(slurm, "bad"), "SELECT status, reason FROM runs ORDER BY id")
    assert rows[0] == ("failed", "sbatch: invalid partition specified: nope")


def test_no_sbatch_is_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "hpceval", "submit", "pingpong", "--nodes", "1",
                           "--db", str(tmp_path / "x.db")], capture_output=True, text=True,
                          env={"PATH": str(tmp_path), "HOME": str(tmp_path)}, cwd=ROOT)
    assert proc.returncode == 2
    assert "no `sbatch` on PATH" in one_line_error(proc.stderr)


def test_dry_run_quotes_every_word(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "hpceval", "submit", "pingpong", "--nodes", "2",
                           "--ppn", "3", "--tag", EVIL_TAG, "--set", "sizes=8", "--dry-run",
                           "--db", str(tmp_path / "x.db")], capture_output=True, text=True,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=3\n" in proc.stdout
    assert f"'{EVIL_TAG}'" in proc.stdout
    # Run by a shell (with hpceval replaced by echo): the tag comes out as written.
    script = proc.stdout.replace(f"exec {sys.executable} -m hpceval", "exec echo")
    out = subprocess.run(["sh", "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert EVIL_TAG in out.stdout and not (tmp_path / "hacked-by-tag").exists()
    assert not (tmp_path / "x.db").exists()                 # a dry run stores nothing


# One launch that cannot finish in a one-minute job: 10 sizes of 15 s each (the CI target is out
# of reach, so every size spends its budget), 150 s; its first sizes are measured before the end.
NEVER_ENDS = ["--set", "mem-latency.sizes=4K,8K,12K,16K,20K,24K,28K,32K,40K,48K",
              "--set", "mem-latency.budget=15", "--set", "mem-latency.ci-target=0.0001",
              "--set", "mem-latency.max-reps=1000000", "--set", "mem-latency.window=0"]
# 30 sizes of 3 s: 90 s, more than the 30 s Slurm may take to act on a job's end.
OUTLASTS = ["--set", "mem-latency.sizes=" + ",".join(f"{k}K" for k in range(4, 124, 4)),
            "--set", "mem-latency.budget=3", "--set", "mem-latency.ci-target=0.0001",
            "--set", "mem-latency.max-reps=1000000", "--set", "mem-latency.window=0"]


def test_time_limit_marks_the_run_timeout(slurm):
    # The job's clock would leave that launch out (its estimate exceeds the job): a negative
    # margin lets it start, as a clock that failed or a launch that outlived its estimate would.
    # Once mem-latency has measured a size, the job's end is brought forward (scontrol's EndTime:
    # the 1-minute limit stays) and Slurm ends the job as at its limit, at its next check (every
    # 30 s): 20-50 s in all, against 60-90 s for a limit reached by waiting.
    db = _db(slurm, "timeout")
    t0 = time.monotonic()
    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(slurm.hpceval, db, "submit", "pingpong", "mem-latency", "--nodes",
                              "2", "--time", "1", "--wait", *SHORT, *OUTLASTS, "--timeout",
                              "300", env={"HPCEVAL_SLURM_MARGIN": "-120"}, timeout=240)
        job = _mem_latency_under_way(db, waiting)
        end = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(time.time() + 2))
        slurm.on("node1", "scontrol", "update", f"JobId={job}", f"EndTime={end}")
        proc = waiting.result()
    print(f"time limit: submit to result {time.monotonic() - t0:.1f} s")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    line = one_line_error(proc.stderr)
    assert proc.stderr.strip() == line, proc.stderr
    assert "timeout" in line and "TIMEOUT" in line and "time limit 00:01:00" in line, line
    (status, reason), = _query(db, "SELECT status, reason FROM runs")
    state = slurm.job_state(job)
    assert (state["JobState"], state["TimeLimit"]) == ("TIMEOUT", "00:01:00"), state
    assert status == "timeout" and f"Slurm job {job} TIMEOUT" in reason
    launches = dict(_query(db, "SELECT benchmark, status FROM launches"))
    assert launches == {"pingpong": "ok", "mem-latency": "interrupted"}, launches
    # Every record: the finished launch's, and the sizes measured before Slurm's SIGTERM.
    counts = dict(_query(db, "SELECT l.benchmark, count(r.id) FROM launches l LEFT JOIN"
                             " records r ON r.launch_id = l.id GROUP BY l.benchmark"))
    assert counts["pingpong"] > 20 and 1 <= counts["mem-latency"] < 30, counts
    assert slurm.strays() == []


def _mem_latency_under_way(db, waiting) -> str:
    """The job's id once pingpong is stored and mem-latency has had 5 s, more than a size's
    budget (the driver stores a launch's records when it ends; the follower still waits)."""
    deadline = time.monotonic() + 120
    while not _poll(db, "SELECT 1 FROM launches WHERE benchmark = 'pingpong'"):
        assert not waiting.done(), waiting.result()
        assert time.monotonic() < deadline, "the job's first launch never finished"
        time.sleep(0.3)
    time.sleep(5)
    return _query(db, "SELECT job_id FROM runs")[0][0]


def test_study_past_its_time_leaves_launches_out(slurm):
    # 30 s of the minute kept free: about 28 s for launches. pingpong fits; mem-latency (33
    # sizes of 5 s, 2.8 min at most) does not, so neither it nor anything after it starts.
    db = _db(slurm, "pastlimit")
    proc = slurm.hpceval(db, "submit", "pingpong", "mem-latency", "stream", "--nodes", "2",
                         "--time", "1", "--wait", *SHORT, "--set", "mem-latency.budget=5",
                         env={"HPCEVAL_SLURM_MARGIN": "30"}, timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    line = one_line_error(proc.stderr)
    assert proc.stderr.strip() == line, proc.stderr
    assert "timeout: stopped by the job's time limit: " in line and "job's 1:00" in line, line
    assert "left out 3 launches: mem-latency random base, mem-latency window, stream" in line
    assert "exceeds --time 1 less 30 s: the job starts only" in proc.stdout   # said at once
    (status, reason, settings), = _query(db, "SELECT status, reason, settings FROM runs")
    assert status == "timeout" and reason in line
    assert json.loads(settings)["left_out"][0] == "mem-latency random base"
    assert _query(db, "SELECT benchmark, status FROM launches") == [("pingpong", "ok")]
    assert _query(db, "SELECT count(*) FROM records")[0][0] > 20
    assert slurm.strays() == []
