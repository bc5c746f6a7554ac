"""Where things live: the benchmark binaries and the default database."""
import json
import os
from pathlib import Path

from hpceval.errors import UsageError

_PACKAGE = Path(__file__).resolve().parent
_SOURCE_ROOT = _PACKAGE.parent


def data_dir() -> Path:
    """$XDG_DATA_HOME/hpceval (default ~/.local/share/hpceval): kept across checkouts."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "hpceval"


def user_build() -> Path:
    """Where `hpceval build` puts a C core built against another MPI."""
    return data_dir() / "build"


def package_build() -> Path:
    """The C core `pip install` built into the package (setup.py)."""
    return _PACKAGE / "_build"


def source_csrc() -> Path:
    """The C sources: the checkout's csrc, else the copy pip installed with the package."""
    checkout = _SOURCE_ROOT / "csrc"
    return checkout if (checkout / "Makefile").is_file() else _PACKAGE / "_csrc"


def bin_dir() -> Path:
    """Directory of the built C benchmarks: $HPCEVAL_BINDIR, else the user's `hpceval build`,
    else the one pip installed, else build/bin of the checkout (make build)."""
    env = os.environ.get("HPCEVAL_BINDIR")
    if env:
        return Path(env)
    for build in (user_build(), package_build()):
        if (build / "bin" / "buildinfo.json").is_file():
            return build / "bin"
    return _SOURCE_ROOT / "build" / "bin"


def binary(name: str, directory: "str | None" = None) -> Path:
    """hpceval-NAME in `directory` (a named build's bin), else in bin_dir()."""
    path = (Path(directory) if directory else bin_dir()) / f"hpceval-{name}"
    why = left_out(name, directory)
    if why:
        raise UsageError(f"{name} is not in the build {path.parent}: {why}")
    if not os.access(path, os.X_OK):
        raise UsageError(
            f"benchmark binary {path} not found: build the C core with 'hpceval build' "
            "(or 'make build' in a checkout, or set HPCEVAL_BINDIR)")
    return path


def left_out(name: str, directory: "str | None" = None) -> "str | None":
    """Why the build (in `directory`, else bin_dir()) left hpceval-NAME out, when it did and
    the binary is not there (buildinfo.json's "left_out": dense without ScaLAPACK)."""
    bindir = Path(directory) if directory else bin_dir()
    if os.access(bindir / f"hpceval-{name}", os.X_OK):
        return None
    try:
        info = json.loads((bindir / "buildinfo.json").read_text())
    except (OSError, ValueError):
        return None
    left = info.get("left_out") if isinstance(info, dict) else None
    why = left.get(name) if isinstance(left, dict) else None
    return why if isinstance(why, str) else None


def build_has(feature: str, directory: "str | None" = None) -> bool:
    """Whether the build (in `directory`, else bin_dir()) has `feature`, as buildinfo.json says
    ("shmem": OpenSHMEM, csrc/Makefile); True where no build says otherwise (a dry run without
    a build plans as the catalog's snapshot of the tables does)."""
    bindir = Path(directory) if directory else bin_dir()
    try:
        info = json.loads((bindir / "buildinfo.json").read_text())
    except (OSError, ValueError):
        return True
    return not isinstance(info, dict) or info.get(feature, True) is not False


def build_says(feature: str) -> bool:
    """Whether the build says it has `feature`, for what buildinfo.json names only where a build
    has it ("caf": Co-Array Fortran, csrc/Makefile); True where there is no build (a dry run
    without one plans as the catalog's snapshot of the tables does)."""
    try:
        info = json.loads((bin_dir() / "buildinfo.json").read_text())
    except (OSError, ValueError):
        return True
    return not isinstance(info, dict) or info.get(feature) is True


def build_info_path() -> Path:
    return bin_dir() / "buildinfo.json"


def default_db() -> Path:
    """$HPCEVAL_DB, else $XDG_DATA_HOME/hpceval/results.sqlite (kept across checkouts so history
    accumulates)."""
    env = os.environ.get("HPCEVAL_DB")
    if env:
        return Path(env)
    return data_dir() / "results.sqlite"


def trace_library() -> Path:
    """The PMPI trace library (csrc/trace), built beside the binaries: build/lib."""
    env = os.environ.get("HPCEVAL_TRACE_LIB")
    path = Path(env) if env else bin_dir().parent / "lib" / "libhpceval-trace.so"
    if not path.is_file():
        raise UsageError(f"trace library {path} not found: build the C core with 'hpceval build' "
                         "(or 'make build' in a checkout, or set HPCEVAL_TRACE_LIB)")
    return path
