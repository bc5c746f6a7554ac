"""`python -m hpceval` without the interpreter's start and the libraries' imports: a server per
test process holds numpy, scipy, matplotlib, jinja2 and rich imported (not hpceval, whose
catalog reads HPCEVAL_CATALOG_PATH as it is imported) and forks a process per command. The
command's process gets the caller's standard streams, environment, working directory and
arguments, imports hpceval and runs its main as `python -m hpceval` would; its exit status
(code or signal) comes back as subprocess.run's. Those imports were 0.1-0.6 s of CPU in each of
the ~900 commands of make test's first pass.

Protocol, one connection per command: the client sends a JSON request with the three stream
descriptors (SCM_RIGHTS); a waiter forked by the server forks the command, sends back its pid,
then its wait status, and exits."""
from __future__ import annotations

import atexit
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from typing import Dict, List, Optional

PRELOAD = ("numpy", "scipy.stats", "matplotlib", "matplotlib.pyplot", "jinja2", "markupsafe",
           "rich.console", "rich.table", "sqlite3", "argparse", "statistics", "tomllib", "uuid",
           "xml.etree.ElementTree")
# Variables a fresh interpreter or a preloaded library reads as it starts: a command whose
# environment changes one of them runs in a process of its own.
STARTUP = ("PYTHON", "MPL", "LC_", "LANG")


def _preload() -> None:
    os.environ.setdefault("MPLBACKEND", "Agg")
    for name in PRELOAD:
        __import__(name)


def _run_command(request: Dict, fds: List[int]) -> None:
    """In the command's process: become `python -m hpceval ARGS`, then exit."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = [os.path.join(request["root"], "hpceval", "__main__.py"), *request["args"]]
    code = 1
    try:
        from hpceval.cli import main
        code = main()
    except SystemExit as exc:
        code = exc.code
    except BaseException:  # noqa: BLE001 - an uncaught exception: a traceback and 1, as python
        traceback.print_exc()
    if not isinstance(code, int):
        if code is not None:
            print(code, file=sys.stderr)
        code = 0 if code is None else 1
    atexit._run_exitfuncs()       # hpceval's own (Open MPI session directories)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code & 0xFF)


def _wait_for_command(conn: socket.socket, request: Dict, fds: List[int]) -> None:
    """In the waiter: fork the command, report its pid and then its wait status."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    pid = os.fork()
    if pid == 0:
        conn.close()
        _run_command(request, fds)
    for fd in fds:
        os.close(fd)
    conn.sendall(f"{pid}\n".encode())
    _, status = os.waitpid(pid, 0)
    conn.sendall(f"{status}\n".encode())
    os._exit(0)


def serve(path: str, parent: int) -> None:
    _preload()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)       # the waiters reap themselves
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(16)
    server.settimeout(1.0)
    print("ready", flush=True)
    while os.getppid() == parent:                         # ends with its test process
        try:
            conn, _ = server.accept()
        except socket.timeout:
            continue
        conn.settimeout(None)
        msg, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
        if os.fork() == 0:
            server.close()
            _wait_for_command(conn, json.loads(msg), fds)
        conn.close()
        for fd in fds:
            os.close(fd)


class Server:
    """The client side: one server per test process, started on first use."""

    def __init__(self, root: str):
        self.root = root
        self.dir = tempfile.mkdtemp(prefix="hpceval-cliserver-")
        self.path = os.path.join(self.dir, "socket")
        self.env = dict(os.environ)
        self.proc = subprocess.Popen([sys.executable, __file__, self.path, str(os.getpid())],
                                     stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                                     cwd=root)
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the CLI server did not start ({self.proc.poll()})")
        atexit.register(self.close)

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        for name in os.listdir(self.dir):
            os.unlink(os.path.join(self.dir, name))
        os.rmdir(self.dir)

    def serves(self, env: Dict[str, str]) -> bool:
        """Whether a preloaded process behaves as a fresh one in `env`."""
        keys = {k for k in set(env) | set(self.env) if k.startswith(STARTUP)}
        return self.proc.poll() is None and all(env.get(k) == self.env.get(k) for k in keys)

    def run(self, args: List[str], env: Dict[str, str], cwd: str,
            timeout: Optional[float]) -> subprocess.CompletedProcess:
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
                open(os.devnull, "rb") as null, \
                socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(self.path)
            request = {"args": args, "env": env, "cwd": str(cwd), "root": self.root}
            socket.send_fds(conn, [json.dumps(request).encode()],
                            [null.fileno(), out.fileno(), err.fileno()])
            reply = conn.makefile("r")
            pid = int(reply.readline())
            status = self._status(reply, pid, timeout, args)
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
        code = os.waitstatus_to_exitcode(status)
        return subprocess.CompletedProcess([sys.executable, "-m", "hpceval", *args], code,
                                           stdout, stderr)

    @staticmethod
    def _status(reply, pid: int, timeout: Optional[float], args: List[str]) -> int:
        """The command's wait status; past `timeout` it is killed, as subprocess.run does."""
        expired = threading.Event()

        def kill() -> None:
            expired.set()
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        timer = threading.Timer(timeout, kill) if timeout else None
        if timer:
            timer.start()
        try:
            line = reply.readline()
        finally:
            if timer:
                timer.cancel()
        if expired.is_set():
            raise subprocess.TimeoutExpired([sys.executable, "-m", "hpceval", *args], timeout)
        return int(line)


if __name__ == "__main__":
    sys.path[0] = os.getcwd()            # as `python -m` has it: the directory, not tests/
    serve(sys.argv[1], int(sys.argv[2]))
