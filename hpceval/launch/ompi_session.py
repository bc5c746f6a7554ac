"""A session directory of its own for each single-host Open MPI launch.

Open MPI 4 (ORTE) keeps every mpirun's session files under one top directory per host and
user (<tmpdir>/ompi.<host>.<uid>), and the mpirun that ends last removes it. Two launches that
start and end together (an experiment's copies, jobs sharing a node) race: one removes the top
directory while the other creates its own inside it, and MPI_Init fails ("A call to mkdir was
unable to create the desired directory"; open-mpi/ompi#8510). It failed 1 run in 30 of
`experiment sharing` here. Each launch gets <base>/hpceval-ompi.<pid>.XXXX/<n> instead, under
the base the user chose (OMPI_MCA_orte_tmpdir_base) or the temporary directory; the driver
removes its directory when it exits."""
from __future__ import annotations

import atexit
import itertools
import os
import shutil
import tempfile
import threading
from typing import Optional

_lock = threading.Lock()
_parent: Optional[str] = None
_count = itertools.count(1)


def _base() -> str:
    return os.environ.get("OMPI_MCA_orte_tmpdir_base") or tempfile.gettempdir()


def launch_dir() -> Optional[str]:
    """A fresh directory name for one launch's session tree (mpirun creates it), or None when
    none can be made (Open MPI's default then)."""
    global _parent
    with _lock:
        if _parent is None or not os.path.isdir(_parent):
            try:
                _parent = tempfile.mkdtemp(prefix=f"hpceval-ompi.{os.getpid()}.", dir=_base())
            except OSError:
                return None
            atexit.register(shutil.rmtree, _parent, True)
        return os.path.join(_parent, str(next(_count)))
