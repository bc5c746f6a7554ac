"""Where things live: the benchmark binaries and the default database."""
import os
from pathlib import Path

from hpceval.errors import UsageError

_SOURCE_ROOT = Path(__file__).resolve().parent.parent


def bin_dir() -> Path:
    """Directory of the built C benchmarks ($HPCEVAL_BINDIR, else build/bin of the checkout)."""
    env = os.environ.get("HPCEVAL_BINDIR")
    return Path(env) if env else _SOURCE_ROOT / "build" / "bin"


def binary(name: str) -> Path:
    path = bin_dir() / f"hpceval-{name}"
    if not os.access(path, os.X_OK):
        raise UsageError(
            f"benchmark binary {path} not found: build the C core with 'make build' "
            "(or set HPCEVAL_BINDIR)")
    return path


def build_info_path() -> Path:
    return bin_dir() / "buildinfo.json"


def default_db() -> Path:
    """$HPCEVAL_DB, else $XDG_DATA_HOME/hpceval/results.sqlite (kept across checkouts so history
    accumulates)."""
    env = os.environ.get("HPCEVAL_DB")
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "hpceval" / "results.sqlite"


def trace_library() -> Path:
    """The PMPI trace library (csrc/trace), built beside the binaries: build/lib."""
    env = os.environ.get("HPCEVAL_TRACE_LIB")
    path = Path(env) if env else bin_dir().parent / "lib" / "libhpceval-trace.so"
    if not path.is_file():
        raise UsageError(f"trace library {path} not found: build the C core with 'make build' "
                         "(or set HPCEVAL_TRACE_LIB)")
    return path
