"""A killed driver leaves nothing running: SIGTERM, SIGHUP and SIGINT kill the launch's process
group and mark the run interrupted; after SIGKILL the launcher dies with its parent (and Open
MPI's ranks with mpirun), and the next command marks the run abandoned. Real mpirun, real ranks
(a hung rank from the harness's fault injection keeps the launch going)."""
from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from helpers import BIN, new_token, processes_of

PINGPONG = str(BIN / "hpceval-pingpong")


TOKEN = new_token()         # this session's hung launches carry it (helpers.processes_of)


def _ours() -> list:
    return processes_of(PINGPONG, TOKEN)


def _wait_for(cond, limit_s: float) -> bool:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.1)
    return cond()


@pytest.fixture
def hung_run(cli, bindir):
    """A driver whose launch hangs (the last rank sleeps); yields it once the ranks run."""
    assert not _ours(), "an earlier test's hung pingpong is still running"
    driver = subprocess.Popen(
        [*cli.argv(), "run", "pingpong", "--set", "inject=hang", "--set", "sizes=8",
         "--set", "budget=0.05", "--timeout", "120"],
        env=cli.env(TOKEN), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        start_new_session=True)     # the test's own signals stay away from it
    try:
        assert _wait_for(lambda: len(_ours()) >= 3, 30), "mpirun and 2 ranks did not start"
        yield driver
    finally:
        if driver.poll() is None:
            driver.kill()
        driver.wait()
        for pid in _ours():         # never leave anything behind, even when the test failed
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_stop_signals_kill_the_launch_and_mark_the_run(cli, hung_run, sig):
    hung_run.send_signal(sig)
    assert hung_run.wait(timeout=30) == 128 + sig
    assert f"interrupted by {signal.Signals(sig).name}" in hung_run.stderr.read().splitlines()[-1]
    assert _wait_for(lambda: not _ours(), 10), f"left running: {_ours()}"
    [run] = cli.export()
    assert run["status"] == "interrupted"
    assert run["launches"][0]["status"] == "interrupted"


def test_sigkill_leaves_nothing_and_the_run_is_abandoned(cli, hung_run):
    hung_run.kill()
    hung_run.wait(timeout=10)
    assert _wait_for(lambda: not _ours(), 15), f"left running: {_ours()}"
    p = cli("runs")                 # the next command that opens the database
    assert p.returncode == 0 and "abandoned" in p.stdout, p.stdout
    [run] = cli.export()
    assert run["status"] == "abandoned" and run["finished"]
