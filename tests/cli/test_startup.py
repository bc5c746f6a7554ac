"""The CLI imports only the command it is given, and no numpy or jsonschema until a command
needs them: make test starts `python -m hpceval` 700 times, a third of them refusals that run
nothing, and each paid 0.1 s for the libraries (0.17 s a start-up now, 0.27 s before)."""
import array
import fcntl
import os
import signal
import subprocess
import sys
import time

import pytest

from helpers import ROOT, single_line

PROBE = """
import sys
from hpceval.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
heavy = [m for m in ("numpy", "jsonschema", "scipy", "matplotlib") if m in sys.modules]
commands = sorted(m for m in sys.modules if m.startswith("hpceval.cli.cmd_"))
print(code, ",".join(heavy) or "-", ",".join(commands) or "-")
"""


def _probe(tmp_path, *args, db=True):
    where = ["--db", str(tmp_path / "r.sqlite")] if db else []
    p = subprocess.run([sys.executable, "-c", PROBE, *args, *where],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    code, heavy, commands = p.stdout.splitlines()[-1].split()   # after what the command printed
    return int(code), heavy, commands.split(",")


@pytest.mark.parametrize("args", [["runs"], ["export", "latest"], ["run", "pingpong", "--np", "0"],
                                  ["show", "latest"], ["import", "/nonexistent.json"]])
def test_a_command_loads_itself_and_no_numerics(tmp_path, args):
    code, heavy, commands = _probe(tmp_path, *args)
    assert heavy == "-", (args, heavy)
    # its own module, and those it borrows from (runs and show share show's tables)
    assert f"hpceval.cli.cmd_{args[0]}" in commands and len(commands) <= 3, commands


def test_a_misspelt_command_still_lists_every_command(tmp_path):
    p = subprocess.run([sys.executable, "-m", "hpceval", "rnu"], capture_output=True, text=True,
                       cwd=ROOT, timeout=60)
    assert p.returncode == 2 and "invalid choice: 'rnu'" in p.stderr
    assert "'run'" in p.stderr and "'spec'" in p.stderr and "'experiment'" in p.stderr


def test_the_version_loads_no_command(tmp_path):
    code, heavy, commands = _probe(tmp_path, "--version", db=False)
    assert (code, heavy, commands) == (0, "-", ["-"])


F_SETPIPE_SZ, FIONREAD = 1031, 0x541B      # linux/fcntl.h, asm-generic/ioctls.h


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_ends_a_command_that_starts_nothing_with_one_line(sig):
    """A command without processes of its own (list, here blocked writing its output into a
    full pipe) ends on SIGTERM or SIGHUP as on Ctrl-C: exit 128 + signal and one line, where
    the signal's default action ended it without a word (exit -15)."""
    r, w = os.pipe()
    fcntl.fcntl(w, F_SETPIPE_SZ, 4096)
    # the signal at its default action in the command, as in a terminal: under nohup the suite
    # passes SIGHUP on ignored, and an ignored signal rightly stays ignored (hpceval/cli)
    p = subprocess.Popen([sys.executable, "-m", "hpceval", "list", "-v"], stdout=w,
                         stderr=subprocess.PIPE, text=True, cwd=ROOT,
                         preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))
    os.close(w)
    try:
        deadline = time.monotonic() + 60
        while not _blocked_writing(p.pid) and time.monotonic() < deadline:
            time.sleep(0.02)                   # the pipe full: the command is blocked writing
        assert _blocked_writing(p.pid) and _unread(r) > 0
        p.send_signal(sig)
        with os.fdopen(r, "rb") as reader:     # let it flush and exit
            reader.read()
        assert p.wait(timeout=60) == 128 + sig
        assert single_line(p.stderr.read()) == f"hpceval: interrupted by {sig.name}"
    finally:
        p.kill()
        p.wait()


def _blocked_writing(pid: int) -> bool:
    with open(f"/proc/{pid}/wchan") as f:
        return f.read().endswith("pipe_write")     # anon_pipe_write on newer kernels


def _unread(fd: int) -> int:
    buf = array.array("i", [0])
    fcntl.ioctl(fd, FIONREAD, buf)
    return buf[0]
