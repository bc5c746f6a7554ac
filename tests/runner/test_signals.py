"""A stopped driver leaves nothing running, at every moment of a run: SIGTERM, SIGHUP and
SIGINT during the cache probe (before the run exists: nothing is stored), between launches and
inside one end the command with 128 + the signal and one line, kill what it started and mark
the run interrupted with the records before kept; after SIGKILL the launcher dies with its
parent (and Open MPI's ranks with mpirun), and the next command marks the run abandoned. Real
mpirun, real ranks (a hung rank from the harness's fault injection keeps the launch going)."""
from __future__ import annotations

import os
import signal
import subprocess

import pytest

from helpers import BIN, FAST, launches_stored, new_token, one_line_error, processes_of, wait_for

PINGPONG = str(BIN / "hpceval-pingpong")


TOKEN = new_token()         # this session's drivers carry it, and all they start
FAULTHANDLER = {"PYTHONFAULTHANDLER": "1"}   # a hung driver's threads, shown on SIGABRT


def NAME(sig: signal.Signals) -> str:     # a test's id: its signal's name
    return sig.name


def _ours() -> list:
    return processes_of(PINGPONG, TOKEN)


def _left() -> list:
    """Whatever this file's drivers started that still runs (mpirun, ranks, probes)."""
    return processes_of(None, TOKEN)


def _driver(cli, *args: str) -> subprocess.Popen:
    """`hpceval run ARGS` in a session of its own: the test's own signals stay away from it."""
    assert not _left(), f"an earlier test's processes still run: {_left()}"
    return subprocess.Popen([*cli.argv(), "run", *args], env=cli.env(TOKEN) | FAULTHANDLER,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def _stopped(driver: subprocess.Popen, sig: int) -> str:
    """Send `sig`; the exit status is 128 + sig, nothing is left running; the last line."""
    driver.send_signal(sig)
    assert _exit_status(driver) == 128 + sig
    line = one_line_error(driver.stderr.read())
    assert line == f"hpceval: interrupted by {signal.Signals(sig).name}", line
    assert wait_for(lambda: not _left(), 10), f"left running: {_left()}"
    return line


def _exit_status(driver: subprocess.Popen) -> int:
    """The driver's exit status; a driver still running 30 s after the signal fails the test
    with every thread's stack (faulthandler, on SIGABRT): where it waits says why."""
    try:
        return driver.wait(timeout=30)
    except subprocess.TimeoutExpired:
        driver.send_signal(signal.SIGABRT)
        _, err = driver.communicate(timeout=30)
        raise AssertionError(f"the driver did not exit 30 s after the signal:\n{err}") from None


def _reap(driver: subprocess.Popen) -> None:
    """Never leave anything behind, even when the test failed."""
    if driver.poll() is None:
        driver.kill()
    driver.wait()
    for pid in _left():
        os.kill(pid, signal.SIGKILL)


@pytest.fixture
def hung_run(cli, bindir):
    """A driver whose launch hangs (the last rank sleeps); yields it once the ranks run."""
    driver = _driver(cli, "pingpong", "--set", "inject=hang", "--set", "sizes=8",
                     "--set", "budget=0.05", "--timeout", "120")
    try:
        assert wait_for(lambda: len(_ours()) >= 3, 30), "mpirun and 2 ranks did not start"
        yield driver
    finally:
        _reap(driver)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=NAME)
def test_stop_signals_kill_the_launch_and_mark_the_run(cli, hung_run, sig):
    _stopped(hung_run, sig)
    [run] = cli.export()
    assert run["status"] == "interrupted"
    assert run["launches"][0]["status"] == "interrupted"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=NAME)
def test_a_stop_signal_during_the_cache_probe_ends_the_command_before_any_run(cli, bindir, sig):
    # The probe runs before the run is opened: Ctrl-C there was taken for the probe's failure
    # and the run went on launching (#44).
    driver = _driver(cli, "mem-latency", *FAST, "--llc", "probe")
    try:
        probe = BIN / "hpceval-mem-latency"
        assert wait_for(lambda: processes_of(probe, TOKEN), 30), "the cache probe did not start"
        assert not cli.db.exists()              # the probe comes first
        _stopped(driver, sig)
        assert not cli.db.exists(), "nothing is stored before the run exists"
    finally:
        _reap(driver)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=NAME)
def test_a_stop_signal_after_a_launch_keeps_its_records_and_marks_the_run(cli, bindir, sig):
    # Sent once the first launch is stored: between launches, or as the second starts.
    driver = _driver(cli, "pingpong", "column", *FAST, "--set", "pingpong.sizes=8",
                     "--set", "pingpong.refine=0")
    try:
        assert wait_for(lambda: launches_stored(cli.db) >= 1, 60), "no launch was stored"
        _stopped(driver, sig)
    finally:
        _reap(driver)
    [run] = cli.export()
    assert run["status"] == "interrupted"
    first = run["launches"][0]
    assert first["label"].startswith("pingpong") and first["status"] == "ok"
    assert [r for r in run["records"] if r["benchmark"] == "pingpong"]
    assert all(l["status"] == "interrupted" for l in run["launches"][1:])


def test_sigkill_leaves_nothing_and_the_run_is_abandoned(cli, hung_run):
    hung_run.kill()
    hung_run.wait(timeout=10)
    assert wait_for(lambda: not _left(), 15), f"left running: {_left()}"
    p = cli("runs")                 # the next command that opens the database
    assert p.returncode == 0 and "abandoned" in p.stdout, p.stdout
    [run] = cli.export()
    assert run["status"] == "abandoned" and run["finished"]
