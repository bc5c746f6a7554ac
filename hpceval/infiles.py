"""Reading what the user names as an input file (a hostfile, a spec sheet, a platform, an export
to import, a raw trace): one reader for all. A regular file only (through a link or not), so
that a device (/dev/zero), a FIFO or a directory is refused with one line rather than read
forever or waited on; at most a size cap (a sparse 1 TB file is refused by its size, unread);
and JSON or TOML nested beyond a depth cap refused before a parser recurses into it."""
from __future__ import annotations

import itertools
import json
import os
import re
import stat
from typing import Any, Callable, Optional

from hpceval.errors import UsageError
from hpceval.outfiles import file_type

DEFAULT_LIMIT = 1 << 30          # 1 GiB: more than any input hpceval reads
MAX_DEPTH = 64                   # nesting of JSON arrays and objects: hpceval's own go to ~8


def _too_big(what: str, limit: int) -> UsageError:
    size = f"{limit >> 20} MiB" if limit >= 1 << 20 else f"{limit} bytes"
    return UsageError(f"{what}: more than {size}; refused")


CHUNK = 16 << 20


def _read_capped(f, limit: int) -> bytes:
    """At most limit + 1 bytes, read in chunks: read(n) would allocate n bytes up front, and
    the file may have grown past its size."""
    parts, size = [], 0
    while size <= limit:
        part = f.read(min(CHUNK, limit + 1 - size))
        if not part:
            break
        parts.append(part)
        size += len(part)
    return b"".join(parts)


def read_regular(path: str, what: str, limit: Optional[int] = None, *,
                 first: Optional[int] = None) -> bytes:
    """The bytes of the regular file `path` (at most `limit`, DEFAULT_LIMIT when None; with
    `first`, only its first bytes, whatever its size); UsageError naming `what` otherwise."""
    limit = DEFAULT_LIMIT if limit is None else limit
    try:
        # non-blocking: opening a FIFO must not wait for a writer
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)                           # (Python's file objects refuse a directory)
            raise UsageError(f"{what}: not a regular file ({file_type(st.st_mode)})")
        with os.fdopen(fd, "rb") as f:
            if first is not None:
                return f.read(first)
            if st.st_size > limit:
                raise _too_big(what, limit)
            data = _read_capped(f, limit)
    except OSError as exc:
        raise UsageError(f"{what}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise _too_big(what, limit)
    return data


def read_text(path: str, what: str, limit: Optional[int] = None) -> str:
    """The regular file `path` as UTF-8 text (see read_regular)."""
    try:
        return read_regular(path, what, limit).decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{what}: not UTF-8 text") from None


# A JSON string (its brackets are not structure), or one bracket.
_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def json_depth(text: str) -> int:
    """How deep the arrays and objects of JSON `text` nest, without parsing it (no recursion:
    a scan of its brackets outside strings)."""
    brackets = re.sub(r"[^\[\]{}]+", "", _STRINGS.sub("", text))
    return max(itertools.accumulate(map(_STEP.__getitem__, brackets)), default=0)


def check_depth(text: str, what: str, max_depth: int = MAX_DEPTH) -> None:
    if json_depth(text) > max_depth:
        raise UsageError(f"{what}: nested more than {max_depth} levels deep; refused")


def parse_nested(parse: Callable[[str], Any], text: str, what: str,
                 max_depth: int = MAX_DEPTH) -> Any:
    """parse(text) once its nesting is within max_depth; a parser that still recurses too far
    (TOML's) is the same refusal, not an internal error."""
    check_depth(text, what, max_depth)
    try:
        return parse(text)
    except RecursionError:
        raise UsageError(f"{what}: nested too deep; refused") from None


def read_json(path: str, what: str, limit: Optional[int] = None,
              max_depth: int = MAX_DEPTH) -> Any:
    """The JSON document in the regular file `path`, nested at most max_depth deep."""
    text = read_text(path, what, limit)
    try:
        return parse_nested(json.loads, text, what, max_depth)
    except ValueError as exc:
        raise UsageError(f"{what}: not JSON ({exc})") from None
