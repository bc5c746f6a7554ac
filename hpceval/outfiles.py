"""One writer for every file hpceval writes (reports, figures, traces, tune tables, JUnit, ...).

It writes only where the user named: an existing file is replaced only when it is of the kind
being written (empty, or its leading bytes look like it: a report never replaces a results
database, a PNG or a program), never a device, a FIFO or a directory, and never through a
symbolic link, neither the named file nor a file inside a named directory (--figures DIR). A
named directory is created without following links. Each output is checked before any work (a
wrong -o fails at once, with one line) and again when it is written (the file may have appeared
meanwhile); files are written whole (to a temporary file renamed into place), and the files of
one command together (`outputs`): a refusal or a failure leaves every old output as it was."""
from __future__ import annotations

import codecs
import os
import secrets
import stat
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Callable, Dict, Iterator, List, Optional, Tuple

from hpceval.errors import UsageError

PNG = b"\x89PNG\r\n\x1a\n"
HEAD = 512                    # bytes read to tell what an existing file is


def _text(head: bytes) -> Optional[str]:
    """The leading bytes as text (a character cut at the end is allowed), or None: binary."""
    if b"\0" in head:
        return None
    try:
        return codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        return None


def _starts(*prefixes: str) -> Callable[[bytes], bool]:
    def looks(head: bytes) -> bool:
        text = _text(head)
        return text is not None and text.lstrip("\ufeff \t\r\n").lower().startswith(prefixes)
    return looks


def _magic(magic: bytes) -> Callable[[bytes], bool]:
    return lambda head: head.startswith(magic)


@dataclass(frozen=True)
class Kind:
    name: str                              # in refusals: "an HTML file"
    looks: Callable[[bytes], bool]         # do these leading bytes look like this kind?


# What each output declares it writes; an existing file of the same kind may be replaced.
KINDS: Dict[str, Kind] = {
    "html": Kind("an HTML file", _starts("<!doctype html", "<html")),
    "svg": Kind("an SVG image", _starts("<?xml", "<svg")),
    "xml": Kind("an XML file", _starts("<?xml")),
    "json": Kind("a JSON file", _starts("{", "[")),
    "png": Kind("a PNG image", _magic(PNG)),
    "pdf": Kind("a PDF document", _magic(b"%PDF-")),
    "text": Kind("a text file", lambda head: _text(head) is not None),
}
SUFFIX_KINDS = {".html": "html", ".htm": "html", ".svg": "svg", ".xml": "xml", ".json": "json",
                ".png": "png", ".pdf": "pdf"}
# Files hpceval never writes, named in a refusal so that the user sees what was at stake.
FOREIGN = {b"SQLite format 3\0": "a SQLite database", b"\x1f\x8b": "gzip data",
           b"\x7fELF": "an ELF executable", b"PK\x03\x04": "a zip archive",
           b"BZh": "bzip2 data", b"\xfd7zXZ\0": "xz data", b"\x28\xb5\x2f\xfd": "zstd data"}
FILE_TYPES = {stat.S_IFREG: "a file", stat.S_IFDIR: "a directory", stat.S_IFCHR: "a character device",
              stat.S_IFBLK: "a block device", stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket",
              stat.S_IFLNK: "a symbolic link"}
NOT_A_LINK = "is a symbolic link; hpceval does not write through links"


def kind_of(path: str | Path) -> str:
    """The kind an output declares by its name's suffix (text when it says nothing)."""
    return SUFFIX_KINDS.get(Path(path).suffix.lower(), "text")


def what_it_is(head: bytes) -> str:
    """A short description of a file from its leading bytes ("a SQLite database")."""
    for magic, name in FOREIGN.items():
        if head.startswith(magic):
            return name
    return next((k.name for k in KINDS.values() if k.looks(head)), "binary data")


def file_type(mode: int) -> str:
    return FILE_TYPES.get(stat.S_IFMT(mode), "not a regular file")


def _head(dfd: Optional[int], name: str) -> bytes:
    # O_NOFOLLOW and O_NONBLOCK: what we peek at is the regular file we lstat'ed, never a FIFO
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dfd)
    try:
        return os.read(fd, HEAD)
    finally:
        os.close(fd)


def refusal(name: str | Path, kind: str, dfd: Optional[int] = None) -> Optional[str]:
    """Why the file `name` (in directory `dfd`) may not be replaced by output of `kind`, or
    None when it may (absent, empty, or of that kind)."""
    try:
        st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return NOT_A_LINK
    if stat.S_ISDIR(st.st_mode):
        return "is a directory"
    if not stat.S_ISREG(st.st_mode):
        return f"not a regular file ({file_type(st.st_mode)}); hpceval writes only regular files"
    if st.st_size == 0:
        return None
    try:
        head = _head(dfd, str(name))
    except OSError as exc:
        return f"exists and cannot be read to tell what it is ({exc.strerror or exc})"
    if KINDS[kind].looks(head):
        return None
    return (f"exists and is not {KINDS[kind].name} ({what_it_is(head)}); hpceval replaces only "
            "its own kind of output")


def _refuse(label: str, why: Optional[str]) -> None:
    if why:
        raise UsageError(f"{label}: {why}")


def _try_write_in(directory: Path, what: str) -> None:
    # os.access says yes to root almost everywhere (/proc, /sys): creating a file is the test.
    try:
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:
        raise UsageError(f"{what}: cannot write in {directory}: {exc.strerror or exc}") from None


def check_output_file(path: str | Path, option: str, kind: Optional[str] = None) -> Path:
    """A file the command may (re)write with output of `kind` (by default from its suffix):
    in a writable directory, and absent, empty or of that kind (see `refusal`)."""
    p = Path(path)
    what = f"{option} {p}"
    if p.is_dir() and not p.is_symlink():
        raise UsageError(f"{what}: is a directory")
    parent = p.parent
    if not parent.is_dir():
        why = "is not a directory" if parent.exists() else "does not exist"
        raise UsageError(f"{what}: directory {parent.resolve()} {why}")
    _try_write_in(parent, what)
    _refuse(what, refusal(p, kind or kind_of(p)))
    return p


def check_output_dir(path: str | Path, option: str) -> Path:
    """A directory the command may create or add files to: not a symbolic link, and where it
    is missing, its nearest existing parent a writable directory."""
    p = Path(path)
    what = f"{option} {p}"
    if p.is_symlink():
        raise UsageError(f"{what}: {NOT_A_LINK}")
    if p.exists() and not p.is_dir():
        raise UsageError(f"{what}: not a directory ({file_type(p.stat().st_mode)})")
    existing = Path(os.path.abspath(p))
    while not os.path.lexists(existing):
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"{what}: {existing} is not a directory")
    _try_write_in(existing, what)
    return p


DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


def _open_dir(directory: Path, label: str) -> int:
    """The directory a named file goes into (links above the file are the user's path)."""
    try:
        return os.open(directory, DIR_FLAGS)
    except OSError as exc:
        raise UsageError(f"{label}: directory {directory} {exc.strerror or exc}") from None


def make_dir(path: str | Path, label: str) -> int:
    """A descriptor of the named directory `path`, created where missing one level at a time,
    each new level and the named one itself opened without following a link."""
    p = Path(os.path.abspath(path))
    missing: List[str] = []
    while not os.path.lexists(p):
        missing.insert(0, p.name)
        p = p.parent
    if not missing and p.is_symlink():
        raise UsageError(f"{label}: {NOT_A_LINK}")
    try:
        fd = os.open(p, DIR_FLAGS | (os.O_NOFOLLOW if not missing else 0))
        for name in missing:
            try:
                os.mkdir(name, 0o777, dir_fd=fd)
            except FileExistsError:
                pass                                  # made meanwhile: opened below, no link
            try:
                nfd = os.open(name, DIR_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
            finally:
                os.close(fd)
            fd = nfd
    except OSError as exc:
        raise UsageError(f"{label}: cannot make or open the directory: "
                         f"{exc.strerror or exc}") from None
    return fd


@contextmanager
def output_errors(what: str) -> Iterator[None]:
    """An OSError while writing an output is the user's file system speaking (full, read-only,
    gone): exit 2 with the file it concerns."""
    try:
        yield
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename and not _is_temporary(exc.filename) else ""
        raise UsageError(f"{what}: cannot write{where}: {exc.strerror or exc}") from None


def _is_temporary(name) -> bool:
    return str(name).startswith(".") and str(name).endswith(".tmp")


class Outputs:
    """The files one command writes: each to a temporary file beside its target; when every one
    is complete, each target is checked again and all are renamed into place. A refusal or a
    failure before that leaves every target as it was."""

    def __init__(self, option: str = ""):
        self.option = option
        self._dirs: Dict[Tuple[str, bool], int] = {}
        self._temps: List[Tuple[int, str]] = []
        self._ready: List[Tuple[int, str, str, str, str]] = []     # dfd, temp, name, kind, label

    def _dir(self, directory: Path, named: bool, label: str) -> int:
        key = (str(directory), named)
        if key not in self._dirs:
            self._dirs[key] = make_dir(directory, label) if named else _open_dir(directory, label)
        return self._dirs[key]

    @contextmanager
    def open(self, path: str | Path, mode: str = "w", kind: Optional[str] = None,
             option: Optional[str] = None, named_dir: bool = False) -> Iterator[IO]:
        """A new file object for `path` (output of `kind`, by default from the suffix); with
        `named_dir`, its directory is one the user named (--figures DIR)."""
        path, kind = Path(path), kind or kind_of(path)
        label = " ".join(filter(None, (option if option is not None else self.option, str(path))))
        dfd = self._dir(path.parent, named_dir, label)
        _refuse(label, refusal(path.name, kind, dfd))
        temp = f".{path.name[:200]}.{secrets.token_hex(4)}.tmp"
        with output_errors(label):
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                         0o644, dir_fd=dfd)
            self._temps.append((dfd, temp))
            with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as f:
                yield f
        self._ready.append((dfd, temp, path.name, kind, label))

    def commit(self) -> None:
        for dfd, _, name, kind, label in self._ready:
            _refuse(label, refusal(name, kind, dfd))
        for dfd, temp, name, _, label in self._ready:
            with output_errors(label):
                os.replace(temp, name, src_dir_fd=dfd, dst_dir_fd=dfd)

    def close(self) -> None:
        for dfd, temp in self._temps:
            try:
                os.unlink(temp, dir_fd=dfd)
            except FileNotFoundError:
                pass
        for fd in self._dirs.values():
            os.close(fd)
        self._dirs.clear()


@contextmanager
def outputs(option: str = "", into: Optional[Outputs] = None) -> Iterator[Outputs]:
    """Files written together (see Outputs); `into`: part of a larger batch, committed there."""
    if into is not None:
        yield into
        return
    batch = Outputs(option)
    try:
        yield batch
        batch.commit()
    finally:
        batch.close()


@contextmanager
def whole_file(path: str | Path, mode: str = "w", kind: Optional[str] = None,
               option: str = "") -> Iterator[IO]:
    """A file object whose content replaces `path` only when the block ends without error (a
    batch of one file; see Outputs and refusal)."""
    with outputs(option) as batch, batch.open(path, mode, kind) as f:
        yield f


def write_text_whole(path: str | Path, text: str, kind: Optional[str] = None,
                     option: str = "") -> None:
    """Write text to path whole (see whole_file)."""
    with whole_file(path, "w", kind, option) as f:
        f.write(text)
