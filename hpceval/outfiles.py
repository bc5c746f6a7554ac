"""Files and directories that commands write: checked before any work (a wrong -o fails at
once, with one line), and written only once everything is ready, each file whole (a temporary
file renamed into place), so a failure leaves no half-written or overwritten output."""
from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

from hpceval.errors import UsageError


def _try_write_in(directory: Path, what: str) -> None:
    # os.access says yes to root almost everywhere (/proc, /sys): creating a file is the test.
    try:
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:
        raise UsageError(f"{what}: cannot write in {directory}: {exc.strerror or exc}") from None


def check_output_file(path: str | Path, option: str) -> Path:
    """A file the command may (re)write: not a directory, not a device, in a writable directory."""
    p = Path(path)
    what = f"{option} {p}"
    if p.is_dir():
        raise UsageError(f"{what}: is a directory")
    if (p.exists() or p.is_symlink()) and not p.is_file():
        raise UsageError(f"{what}: not a regular file (hpceval writes only regular files)")
    parent = p.resolve().parent
    if not parent.is_dir():
        why = "is not a directory" if parent.exists() else "does not exist"
        raise UsageError(f"{what}: directory {parent} {why}")
    _try_write_in(parent, what)
    return p


def check_output_dir(path: str | Path, option: str) -> Path:
    """A directory the command may create or add files to."""
    p = Path(path)
    what = f"{option} {p}"
    if p.exists() and not p.is_dir():
        raise UsageError(f"{what}: not a directory")
    existing = p.resolve()
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"{what}: {existing} is not a directory")
    _try_write_in(existing, what)
    return p


@contextmanager
def output_errors(what: str) -> Iterator[None]:
    """An OSError while writing an output is the user's file system speaking (full, read-only,
    gone): exit 2 with the file it concerns."""
    try:
        yield
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        raise UsageError(f"{what}: cannot write{where}: {exc.strerror or exc}") from None


@contextmanager
def whole_file(path: str | Path, mode: str = "w") -> Iterator[IO]:
    """A file object whose content replaces `path` only when the block ends without error: it
    is written to a temporary file in the same directory and renamed into place, so the old
    file stays as it was until the new one is complete. A `path` that exists and is not a
    regular file (a device, a FIFO, a directory, a link to one) is refused: renaming over
    /dev/null would replace the device."""
    path = Path(path)
    if (path.exists() or path.is_symlink()) and not path.is_file():
        raise UsageError(f"{path}: not a regular file; hpceval writes only regular files")
    fd, tmp = tempfile.mkstemp(dir=path.resolve().parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as f:
            yield f
        os.chmod(tmp, 0o644 & ~_umask())
        os.replace(tmp, path.resolve() if path.is_symlink() else path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_text_whole(path: str | Path, text: str) -> None:
    """Write text to path whole (see whole_file)."""
    with whole_file(path) as f:
        f.write(text)
