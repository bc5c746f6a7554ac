"""execute(): a launch that hangs after its end record (MPICH/UCX in MPI_Finalize) is ended and
kept as ok with a warning; one that hangs before it times out; either way nothing it started,
even in a process group of its own, is left."""
import json
import os
import signal
import subprocess
import sys
import time

from hpceval.runner.execute import FINALIZE_GRACE_S, execute
from test_records import RESULT

END = '{"record_version": 1, "type": "end", "benchmark": "x", "status": "ok", "elapsed_s": 0.1}'


def _left(marker: str) -> bool:
    return subprocess.run(["pgrep", "-f", marker], capture_output=True).returncode == 0


def test_hang_after_the_end_record_is_ok_with_a_warning():
    t0 = time.monotonic()
    out = execute(["sh", "-c", f"echo '{END}'; exec sleep 641"], {}, 60, "now")
    assert out.status == "ok" and time.monotonic() - t0 < FINALIZE_GRACE_S + 8
    assert any("after its end record" in w for w in out.warnings)
    assert not _left("sleep 641")


def test_hang_before_the_end_record_times_out_and_ends_other_groups():
    # setsid/setpgid as launchers do for their remote agents: not in the launcher's group.
    out = execute(["sh", "-c", "setsid sleep 642 & sleep 643"], {}, 1.5, "now")
    assert out.status == "timeout"
    assert not _left("sleep 642") and not _left("sleep 643")


def test_an_error_record_says_why_where_the_launcher_exits_0():
    """SimGrid's smpirun exits 0 when its ranks call MPI_Abort: the launch is failed, and its
    error record (not 'output truncated') says why."""
    err = ('{"record_version": 1, "type": "error", "benchmark": "x", "message": "data check '
           'failed: rank 0 ghost cell (1,0) is wrong", "exit_status": 1}')
    out = execute(["sh", "-c", f"echo '{err}'; exit 0"], {}, 30, "now")
    assert out.status == "failed" and out.message == "data check failed: rank 0 ghost cell " \
        "(1,0) is wrong"
    out = execute(["sh", "-c", "exit 0"], {}, 30, "now")
    assert out.status == "failed" and "without an end record" in out.message


ABORT_BANNER = """--------------------------------------------------------------------------
MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD
with errorcode 1.
--------------------------------------------------------------------------"""


def test_a_rank_s_own_reason_wins_over_the_abort_banner(tmp_path):
    """A rank that writes no records says why on stderr (output.c); Open MPI's banner says only
    which rank aborted. Either exit status (smpirun's 0 too), the launch's message is the rank's
    reason."""
    own = "hpceval-halo: error (rank 1): data check failed: halo pack, rank 1 ghost cell (0,1)"
    (tmp_path / "err").write_text(own + "\n" + ABORT_BANNER + "\n")
    for code in (1, 0):
        out = execute(["sh", "-c", f"cat {tmp_path / 'err'} >&2; exit {code}"], {}, 30, "now")
        assert out.status == "failed", code
        assert out.message == "rank 1: data check failed: halo pack, rank 1 ghost cell (0,1)"


MKDIR_BANNER = """--------------------------------------------------------------------------
A call to mkdir was unable to create the desired directory:

  Directory: /tmp/x/ompi.vm.0/jf.0
  Error:     No such file or directory

Please check to ensure you have adequate permissions to perform
the desired operation.
--------------------------------------------------------------------------"""


def test_a_banner_that_ends_in_a_colon_says_what_it_refers_to(tmp_path):
    (tmp_path / "banner").write_text(MKDIR_BANNER + "\n")
    out = execute(["sh", "-c", f"cat {tmp_path / 'banner'} >&2; exit 1"], {}, 30, "now")
    assert out.status == "failed"
    assert out.message == ("A call to mkdir was unable to create the desired directory: "
                           "Directory: /tmp/x/ompi.vm.0/jf.0 Error: No such file or directory")


# A driver that launches a program which writes its records, closes its output and lingers; it
# prints what execute() returned, or the exception that left it.
DRIVER = """
import json, sys
from hpceval.runner.execute import execute
from hpceval.runner.signals import driver_signals
try:
    with driver_signals():
        out = execute(sys.argv[1:], {}, 60, "now")
    print(json.dumps({"status": out.status, "signum": out.signum,
                      "metrics": [r["metric"] for r in out.results]}))
except BaseException as exc:
    print(json.dumps({"escaped": type(exc).__name__}))
"""


def test_a_stop_while_waiting_for_the_launcher_s_exit_keeps_its_records(tmp_path):
    """The launch's output is all read and the driver waits for the launcher to exit when the
    stop signal comes: the launch is interrupted with its records (its caller stores them),
    where the signal used to leave execute() and take the records with it."""
    records = tmp_path / "records"
    records.write_text(json.dumps(RESULT) + "\n" + END + "\n")
    launch = ["sh", "-c", f"cat {records}; exec >&- 2>&-; exec sleep 644"]
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, *launch], stdout=subprocess.PIPE,
                              text=True)
    try:
        # seen once is enough: asked again, the driver may be between two of its polls
        deadline, seen = time.monotonic() + 30, False
        while not seen and time.monotonic() < deadline:
            seen = _waiting_for_a_child(driver.pid)
            time.sleep(0 if seen else 0.02)
        assert seen and _left("sleep 644")
        driver.send_signal(signal.SIGTERM)
        said = json.loads(driver.communicate(timeout=30)[0])
    finally:
        driver.kill()
    assert said == {"status": "interrupted", "signum": signal.SIGTERM, "metrics": ["latency"]}
    assert not _left("sleep 644")


def _waiting_for_a_child(pid: int) -> bool:
    """The driver is in reap: its output readers are gone (one thread left) and its main thread
    sleeps between Popen.wait's polls (queue.get in _read waits on a futex instead)."""
    with open(f"/proc/{pid}/task/{pid}/wchan") as f:
        sleeping = f.read() == "hrtimer_nanosleep"
    return sleeping and len(os.listdir(f"/proc/{pid}/task")) == 1


# A driver whose stop signal's Interrupted is raised inside a weakref callback, where Python
# prints it as ignored and goes on: on the launch's first record, while the launch sleeps on.
LOST = """
import json, os, signal, sys, weakref
from hpceval.runner.execute import execute
from hpceval.runner.signals import driver_signals

class Box:
    pass

def lose(_):
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(10000):       # the handler runs here, between these bytecodes
        pass

def on_record(_):
    box = Box()
    ref = weakref.ref(box, lose)
    del box

with driver_signals():
    out = execute(sys.argv[1:], {}, 60, "now", on_record)
print(json.dumps({"status": out.status, "signum": out.signum,
                  "metrics": [r["metric"] for r in out.results]}))
"""


def test_a_stop_signal_lost_in_a_callback_still_stops_the_launch(tmp_path):
    """A stop signal whose Interrupted the handler raised where Python ignores exceptions (a
    weakref callback: CI's driver got SIGTERM inside an import's module-lock callback) still
    ends the launch at its next wait, interrupted by that signal, its record kept; it waited
    for the hung launch's whole time limit."""
    records = tmp_path / "records"
    records.write_text(json.dumps(RESULT) + "\n")
    launch = ["sh", "-c", f"cat {records}; exec sleep 644"]
    driver = subprocess.Popen([sys.executable, "-c", LOST, *launch], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        said, err = driver.communicate(timeout=30)
    finally:
        driver.kill()
    assert "Exception ignored" in err, err          # the handler's own exception was lost
    assert json.loads(said) == {"status": "interrupted", "signum": signal.SIGTERM,
                                "metrics": ["latency"]}
    assert not _left("sleep 644")
