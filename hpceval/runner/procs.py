"""The processes of one launch: everything in the session it was started in, and their
descendants. Launchers put their remote agents in process groups of their own (Open MPI's rsh
agent, Hydra's proxies), so killing the launcher's group alone can leave an agent (and, on a
virtual cluster, a node's ranks) running."""
from __future__ import annotations

import os
import signal
import time
from typing import Dict, Set, Tuple


def _table() -> Dict[int, Tuple[int, int]]:
    """pid -> (parent pid, session id) of every process that can be read."""
    out: Dict[int, Tuple[int, int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        out[int(name)] = (int(fields[1]), int(fields[3]))
    return out


def members(sid: int) -> Set[int]:
    """The processes of session `sid` and all their descendants (some call setsid)."""
    table = _table()
    found = {pid for pid, (_, s) in table.items() if s == sid}
    grew = True
    while grew:
        more = {pid for pid, (ppid, _) in table.items() if ppid in found} - found
        found |= more
        grew = bool(more)
    found.discard(os.getpid())
    return found


def _signal(pids: Set[int], sig: int) -> Set[int]:
    alive = set()
    for pid in pids:
        try:
            os.kill(pid, sig)
            alive.add(pid)
        except ProcessLookupError:
            pass
    return alive


def end_session(sid: int, grace_s: float = 5.0) -> None:
    """SIGTERM every member of the session, SIGKILL what is left after `grace_s`."""
    pids = _signal(members(sid), signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while pids and time.monotonic() < deadline:
        time.sleep(0.1)
        pids = {p for p in pids if os.path.exists(f"/proc/{p}") and not _zombie(p)}
    _signal(pids | members(sid), signal.SIGKILL)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def end_children() -> None:
    """End every launch still running (each is a session led by a child of this process)."""
    me = os.getpid()
    for pid, (ppid, sid) in _table().items():
        if ppid == me and sid == pid:
            end_session(pid)
