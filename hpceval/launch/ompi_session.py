"""A session directory of its own for each single-host Open MPI launch.

Open MPI 4 (ORTE) keeps every mpirun's session files under one top directory per host and
user (<tmpdir>/ompi.<host>.<uid>), and the mpirun that ends last removes it. Two launches that
start and end together (an experiment's copies, jobs sharing a node) race: one removes the top
directory while the other creates its own inside it, and MPI_Init fails ("A call to mkdir was
unable to create the desired directory"; open-mpi/ompi#8510). It failed 1 run in 30 of
`experiment sharing` here. Each launch gets <base>/hpceval-ompi.<host>.<pid>.XXXX/<n> instead,
under the base the user chose (OMPI_MCA_orte_tmpdir_base) or the temporary directory; the
driver removes its directory when it exits, and the next driver on the host removes those of
drivers that could not (killed with SIGKILL): its own user's, whose process is gone."""
from __future__ import annotations

import atexit
import itertools
import os
import re
import shutil
import socket
import tempfile
import threading
from typing import Optional

_lock = threading.Lock()
_parent: Optional[str] = None
_count = itertools.count(1)


def _base() -> str:
    return os.environ.get("OMPI_MCA_orte_tmpdir_base") or tempfile.gettempdir()


def _prefix() -> str:
    return f"hpceval-ompi.{socket.gethostname()}."


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:       # another user's process: alive
        pass
    return False


def sweep(base: str) -> None:
    """Remove the directories of this host's killed drivers under base: only this user's,
    only names this module makes, only when their process is gone (a base on a shared file
    system holds other hosts' drivers: their host is in the name)."""
    name = re.compile(re.escape(_prefix()) + r"(\d+)\.[A-Za-z0-9_]+$")
    try:
        entries = list(os.scandir(base))
    except OSError:
        return
    for e in entries:
        m = name.match(e.name)
        try:
            mine = m and e.is_dir(follow_symlinks=False) and e.stat().st_uid == os.getuid()
        except OSError:
            continue
        if mine and int(m.group(1)) != os.getpid() and _gone(int(m.group(1))):
            shutil.rmtree(e.path, ignore_errors=True)


def launch_dir() -> Optional[str]:
    """A fresh directory name for one launch's session tree (mpirun creates it), or None when
    none can be made (Open MPI's default then)."""
    global _parent
    with _lock:
        if _parent is None or not os.path.isdir(_parent):
            sweep(_base())
            try:
                _parent = tempfile.mkdtemp(prefix=f"{_prefix()}{os.getpid()}.", dir=_base())
            except OSError:
                return None
            atexit.register(shutil.rmtree, _parent, True)
        return os.path.join(_parent, str(next(_count)))
