"""hpceval trace end to end: real programs, real ranks, the merged trace checked as a consumer
(Perfetto) would read it; the program's output and exit status are its own."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from helpers import BIN, new_token, one_line_error, processes_of
from hpceval.records import parse_record
from hpceval.trace import validate
from trace_helpers import FOREIGN, built, calls_of

PSST = ["--truncation", "10", "--levels", "2", "--grids", "2x2", "--mappings", "row", "--sums",
        "ring", "--transposes", "pairwise", "--days", "0.5", "--min-reps", "3", "--max-reps", "3",
        "--warmup", "2"]


def mpirun(n):
    cmd = ["mpirun", "--oversubscribe", "-np", str(n)]
    return cmd[:1] + ["--allow-run-as-root"] + cmd[1:] if os.geteuid() == 0 else cmd


def test_four_rank_trace_of_hpceval_binary(cli, tmp_path):
    built()
    out = tmp_path / "psst.json"
    start = time.time()
    p = cli("trace", "-o", str(out), "--np", "4", "--", str(BIN / "hpceval-psst"), *PSST)
    wall_us = (time.time() - start) * 1e6
    assert p.returncode == 0, p.stderr
    recs = [parse_record(l) for l in p.stdout.splitlines() if l.startswith("{")]
    assert recs[0]["type"] == "meta" and recs[-1]["type"] == "end"     # its own records, intact
    with open(out) as f:
        trace = json.load(f)
    validate(trace)
    names = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"]
             if e["ph"] == "M" and e["name"] == "thread_name"}
    assert names == {r: f"rank {r}" for r in range(4)}
    assert {e["tid"] for e in trace["traceEvents"]} == {0, 1, 2, 3}
    assert {e["pid"] for e in trace["traceEvents"]} == {0}
    for r in range(4):
        mpi = [e for e in trace["traceEvents"] if e.get("cat") == "mpi" and e["tid"] == r]
        assert {e["name"] for e in mpi} >= {"MPI_Init_thread", "MPI_Finalize", "MPI_Allreduce"}
        assert len(mpi) > 20 and all(e["args"]["state"] in ("idle", "overhead") for e in mpi)
        # the harness's phases (csrc/harness/phases.h) arrive through MPI_Pcontrol
        phases = {e["name"] for e in trace["traceEvents"] if e.get("cat") == "phase" and e["tid"] == r}
        assert {"fft", "legendre", "transpose", "global_sum"} <= phases
    xs = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert min(e["ts"] for e in xs) == 0.0
    assert max(e["ts"] + e["dur"] for e in xs) < wall_us                 # inside the run
    od = trace["otherData"]
    assert od["nranks"] == 4 and len(od["hosts"]) == 4 and min(od["events"]) > 20
    assert start - 1 < od["t0_unix"] < start + wall_us / 1e6
    assert od["command"].startswith(str(BIN / "hpceval-psst") + " --truncation 10")
    assert "hpceval trace: 4 ranks" in p.stderr and "transpose %" in p.stderr


def test_foreign_program_under_mpirun(cli, tmp_path):
    built()
    out = tmp_path / "foreign.json"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    p = cli("trace", "-o", str(out), "--", *mpirun(4), str(FOREIGN), "3", env={"TMPDIR": str(tmp)})
    assert p.returncode == 0, p.stderr
    assert p.stdout == "trace_foreign: 4 ranks, 3 rounds, ok\n"
    assert list(tmp.iterdir()) == []                        # the raw files were cleaned up
    trace = json.loads(out.read_text())
    validate(trace)
    for r in range(4):
        sends, recvs = calls_of(trace, r, "MPI_Send"), calls_of(trace, r, "MPI_Recv")
        assert len(sends) == len(recvs) == 3 and len(calls_of(trace, r, "MPI_Allreduce")) == 4
        assert {s["args"]["peer"] for s in sends} == {(r + 1) % 4}
        assert {s["args"]["state"] for s in recvs} == {"idle"}
        rounds = calls_of(trace, r, "round")
        exchanges = calls_of(trace, r, "exchange")
        assert len(rounds) == len(exchanges) == len(calls_of(trace, r, "sum")) == 3
        for rd, ex, s in zip(rounds, exchanges, sends):
            assert rd["cat"] == ex["cat"] == "phase"
            assert rd["ts"] <= ex["ts"] <= s["ts"] and s["ts"] + s["dur"] <= ex["ts"] + ex["dur"]
            assert ex["ts"] + ex["dur"] <= rd["ts"] + rd["dur"]
    assert "exchange %" in p.stderr and "0 dropped" in p.stderr


def test_figures_of_a_foreign_program(cli, tmp_path):
    """--figures draws the POP paper's two charts of any traced program."""
    built()
    figs = tmp_path / "figs"
    p = cli("trace", "-o", str(tmp_path / "t.json"), "--figures", str(figs), "--",
            *mpirun(2), str(FOREIGN), "2")
    assert p.returncode == 0, p.stderr
    assert sorted(f.name for f in figs.iterdir()) == [
        "trace-gantt.png", "trace-gantt.svg", "trace-utilization.png", "trace-utilization.svg"]
    svg = (figs / "trace-gantt.svg").read_text()
    assert svg.startswith("<?xml") and "<path" in svg


def test_exit_status_passes_through(cli, tmp_path):
    built()
    out = tmp_path / "t.json"
    p = cli("trace", "-o", str(out), "--np", "2", "--", str(FOREIGN), "1", "5")
    assert p.returncode == 5
    assert p.stdout == "trace_foreign: 2 ranks, 1 rounds, ok\n"
    assert "exited with status 5" in one_line_error(p.stderr)
    validate(json.loads(out.read_text()))                   # every rank finalized: traced


def test_non_mpi_command(cli, tmp_path):
    built()
    out = tmp_path / "t.json"
    p = cli("trace", "-o", str(out), "--", "echo", "hello")
    assert p.returncode == 1 and p.stdout == "hello\n"
    assert "no rank wrote a trace" in one_line_error(p.stderr)
    assert len(p.stderr.strip().splitlines()) == 1 and not out.exists()


def test_keep_raw(cli, tmp_path):
    built()
    raw = tmp_path / "raw"
    p = cli("trace", "-o", str(tmp_path / "t.json"), "--keep-raw", str(raw), "--np", "2", "--",
            str(FOREIGN), "1")
    assert p.returncode == 0, p.stderr
    assert len(list(raw.glob("rank-*.hpt"))) == 2
    p = cli("trace", "-o", str(tmp_path / "t.json"), "--keep-raw", str(raw), "--", "true")
    assert p.returncode == 2 and "already holds raw traces" in one_line_error(p.stderr)


@pytest.mark.parametrize("args,message", [
    ([], "no command given"),
    (["--"], "no command given"),
    (["-o", "/nonexistent-dir/t.json", "--", "true"], "does not exist"),
    (["--np", "0", "--", "true"], "--np 0"),
    (["--max-events", "0", "--", "true"], "--max-events 0"),
    (["--", "no-such-program-hpceval"], "command not found"),
    (["--figures", "/etc/hostname", "--", "true"], "not a directory"),
])
def test_bad_usage(cli, args, message):
    p = cli("trace", *args)
    assert p.returncode == 2 and message in one_line_error(p.stderr)


def test_hang_ends_at_the_time_limit(cli, tmp_path):
    """The program is launched as `hpceval run` launches: a hang is ended (with everything it
    started) at --timeout, one line, exit 1, no trace."""
    built()
    t0 = time.monotonic()
    p = cli("trace", "-o", str(tmp_path / "t.json"), "--timeout", "2", "--", "sh", "-c",
            "sleep 60 & sleep 60")
    assert p.returncode == 1 and "2 s time limit" in one_line_error(p.stderr)
    assert time.monotonic() - t0 < 30 and not (tmp_path / "t.json").exists()


def test_rank_limit_as_in_run(cli, tmp_path):
    p = cli("trace", "-o", str(tmp_path / "t.json"), "--np", "100000", "--", "true")
    assert p.returncode == 2 and "100000 ranks: refused" in one_line_error(p.stderr)


def test_a_killed_rank_is_named(cli, tmp_path):
    built()
    p = cli("trace", "-o", str(tmp_path / "t.json"), "--", *mpirun(2), "sh", "-c",
            'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then kill -9 $$; fi; sleep 1')
    assert p.returncode != 0
    assert "mpirun exited with status" in one_line_error(p.stderr)


def _until(cond, limit_s: float) -> bool:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline and not cond():
        time.sleep(0.1)
    return cond()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_stopped_or_killed_driver_leaves_nothing_running(cli, tmp_path, bindir, sig):
    """As with `hpceval run` (tests/runner/test_signals.py): SIGTERM ends the traced launch with
    its ranks (exit 128 + signal, one line); after SIGKILL the launcher dies with its parent."""
    built()
    token = new_token()         # this launch's, not the other make test worker's
    mine = lambda: processes_of(BIN / "hpceval-pingpong", token)  # noqa: E731
    driver = subprocess.Popen(
        [*cli.argv(), "trace", "-o", str(tmp_path / "t.json"), "--np", "2", "--",
         str(BIN / "hpceval-pingpong"), "--inject", "hang", "--sizes", "8", "--budget", "0.05"],
        env=cli.env(token), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        start_new_session=True)
    try:
        assert _until(lambda: len(mine()) >= 3, 30), "mpirun and 2 ranks did not start"
        driver.send_signal(sig)
        rc = driver.wait(timeout=30)
        if sig == signal.SIGTERM:
            assert rc == 128 + sig
            assert "interrupted by SIGTERM" in driver.stderr.read().splitlines()[-1]
        assert _until(lambda: not mine(), 15), f"left running: {mine()}"
    finally:
        if driver.poll() is None:
            driver.kill()
        driver.wait()
        for pid in mine():
            os.kill(pid, signal.SIGKILL)
