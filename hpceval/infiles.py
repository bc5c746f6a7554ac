"""Reading what the user names as an input file (a hostfile, an export to import): a regular
file only, so that a device (/dev/zero), a FIFO or a directory is refused with one line
rather than read forever or waited on."""
from __future__ import annotations

import os
import stat
from typing import Optional

from hpceval.errors import UsageError


def read_regular(path: str, what: str, limit: Optional[int] = None) -> bytes:
    """The bytes of the regular file `path` (at most `limit`); UsageError naming `what`."""
    try:
        # non-blocking: opening a FIFO must not wait for a writer
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise UsageError(f"{what}: not a regular file")
            data = f.read() if limit is None else f.read(limit + 1)
    except OSError as exc:
        raise UsageError(f"{what}: {exc.strerror or exc}") from None
    if limit is not None and len(data) > limit:
        raise UsageError(f"{what}: more than {limit >> 20} MiB")
    return data
