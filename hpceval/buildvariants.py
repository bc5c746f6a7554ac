"""Named builds of the C core (the IBM p690 talk's compiler-option and ESSL slides): the same
kernels built with another compiler, other flags, another BLAS/LAPACK or another FFT (the
spectral models'), each in a directory of its own ($XDG_DATA_HOME/hpceval/builds/NAME) with its
buildinfo.json (compiler, flags, BLAS, FFT) in
the fingerprint of every run that uses it (`hpceval run --build NAME`, `hpceval experiment
builds`). A variant is a recipe; `NAME=CFLAGS` on the command line makes an ad-hoc one."""
from __future__ import annotations

import glob
import hashlib
import json
import re
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Dict, List, Optional

from hpceval import cbuild, paths
from hpceval.errors import UsageError

NATIVE = "-O3 -march=native"          # csrc/Makefile's own flags


@dataclass(frozen=True)
class Recipe:
    name: str
    cflags: str = NATIVE
    cc: Optional[str] = None          # the compiler under the MPI wrapper (None: the wrapper's)
    blas: str = "openblas"            # a key of BLAS
    mpicc: Optional[str] = None       # the MPI wrapper (None: $MPICC, else mpicc); smpicc: SMPI
    fft: str = "fftw"                 # a key of FFTS: the spectral models' FFT library


VARIANTS: Dict[str, Recipe] = {r.name: r for r in (
    Recipe("gcc-O2", "-O2"), Recipe("gcc-O3", "-O3"), Recipe("gcc-native"),
    Recipe("gcc-Ofast", "-Ofast -march=native"), Recipe("clang-native", cc="clang"),
    Recipe("refblas", blas="reference"), Recipe("blis", blas="blis"),
    Recipe("ownfft", fft="own"), Recipe("smpi", mpicc="smpicc"))}

# The FFT libraries of sst and psst (csrc/kernels/lib/hfft.h; csrc/Makefile's FFT): FFTW, or
# hpceval's own mixed-radix Stockham FFT (the p690 talk's "PSTSWM with/without ESSL").
FFTS = ("fftw", "own")


def _debian_dir(sub: str, lib: str, package: str) -> str:
    """The multiarch directory of a Debian BLAS/LAPACK flavour (e.g. .../blas/libblas.so.3)."""
    found = sorted(glob.glob(f"/usr/lib/*/{sub}/{lib}")) + sorted(glob.glob(f"/usr/lib/{sub}/{lib}"))
    if not found:
        raise cbuild.BuildError(f"{lib} of {sub} not found: install {package} (Debian)")
    return str(Path(found[0]).parent)


def blas_flags(kind: str) -> Optional[str]:
    """Linker flags for the BLAS and LAPACK of a variant; the runtime path is fixed with an
    RPATH (not RUNPATH) so that LAPACK's own libblas.so.3 resolves to the same flavour rather
    than to Debian's alternative."""
    if kind == "openblas":
        return None
    lapack = _debian_dir("lapack", "liblapack.so.3", "liblapack3")
    if kind == "reference":
        blas, lib = _debian_dir("blas", "libblas.so.3", "libblas3"), "-l:libblas.so.3"
    elif kind == "blis":
        blas, lib = _debian_dir("blis-pthread", "libblis.so.4", "libblis4-pthread"), "-l:libblis.so.4"
    else:
        raise UsageError(f"unknown BLAS '{kind}' (known: openblas, reference, blis)")
    return (f"-L{blas} -L{lapack} {lib} -l:liblapack.so.3 "
            f"-Wl,--disable-new-dtags,-rpath,{blas}:{lapack}")


def fft_name(kind: str) -> Optional[str]:
    """csrc/Makefile's FFT for a variant (None: the default, FFTW)."""
    if kind not in FFTS:
        raise UsageError(f"unknown FFT '{kind}' (known: {', '.join(FFTS)})")
    return None if kind == "fftw" else kind


_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,63}")


def check_name(name: str, option: str = "--name") -> str:
    """A build name is a plain name: it becomes a directory under builds/, so nothing that
    could reach outside it (/, .., an empty name) is accepted."""
    if not _NAME.fullmatch(name or "") or name in (".", ".."):
        raise UsageError(f"{option} {name!r}: a build name is 1-64 letters, digits, '.', '-' "
                         "or '_', starting with a letter, digit or '_'")
    return name


def recipe(spec: str) -> Recipe:
    """A variant by name, or NAME=CFLAGS (gcc with those flags)."""
    name, sep, flags = spec.partition("=")
    name = name.strip()
    if sep:
        check_name(name, "--variants")
        if name in VARIANTS or not flags.strip():
            raise UsageError(f"--variants {spec}: NAME=CFLAGS with a new name and some flags")
        try:
            return Recipe(name, cbuild.check_flags(flags.strip(), f"--variants {name}"))
        except cbuild.BuildError as exc:
            raise UsageError(str(exc)) from None
    if name not in VARIANTS:
        raise UsageError(f"unknown build '{name}' (known: {', '.join(VARIANTS)}, or NAME=CFLAGS)")
    return VARIANTS[name]


def builds_root() -> Path:
    return paths.data_dir() / "builds"


def build_dir(name: str) -> Path:
    return builds_root() / check_name(name)


def _remove(path: Path) -> None:
    """Remove a directory of builds/ and nothing else: the last guard between a bad name and a
    user's files."""
    root = builds_root().resolve()
    if path.is_symlink() or path.resolve().parent != root:
        raise UsageError(f"refusing to remove {path}: not a build directory of {root}")
    shutil.rmtree(path, ignore_errors=True)


def _stamp(r: Recipe) -> str:
    # older stamps kept: the fields added later count only when set
    body = {k: v for k, v in asdict(r).items()
            if (k != "mpicc" or v) and (k != "fft" or v != "fftw")}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]


def sources_digest() -> str:
    """The C sources' digest (every file under csrc, by path and content): a named build made
    from other sources is made again (a build kept across an update of hpceval ran the old
    binaries: the SimGrid 4.1 build of the study at 1,024 simulated ranks)."""
    root = paths.source_csrc()
    h = hashlib.sha256()
    for f in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def made_from(name: str) -> Optional[str]:
    """The sources' digest a named build was made from, None where it does not say."""
    try:
        return json.loads((build_dir(name) / "recipe.json").read_text()).get("sources")
    except (OSError, ValueError, AttributeError):
        return None


def stale_build(bindir: Path) -> Optional[str]:
    """The named build `bindir` belongs to, where it was made from other C sources than this
    hpceval's (a run with it measures older code: kept in the run, warned of in `show`); None
    for any other directory or a build that does not say."""
    target = Path(bindir).parent
    if target.parent.resolve() != builds_root().resolve():
        return None
    made = made_from(target.name)
    return target.name if made is not None and made != sources_digest() else None


def ensure_built(r: Recipe, benchmarks: Optional[List[str]] = None) -> Path:
    """The variant's bin directory, built (only `benchmarks`' binaries, else the whole core)
    unless a build of the same recipe and sources with them is there. BuildError: one line, the
    build log's path for the rest."""
    target = build_dir(r.name)
    goals = [str(target / "bin" / f"hpceval-{b}") for b in benchmarks or []]
    recipe_file = target / "recipe.json"
    digest = sources_digest()
    fresh = recipe_file.is_file() and json.loads(recipe_file.read_text()).get("stamp") == \
        _stamp(r) and made_from(r.name) == digest
    if fresh and all(Path(g).is_file() for g in goals) and (goals or (target / "lib").is_dir()):
        return target / "bin"
    # A new recipe is built beside the old build and swapped in only when it succeeded; more
    # binaries of the same recipe are added in place (make builds each goal whole).
    work = target if fresh else target.with_name(f".{target.name}.new")
    if not fresh:
        _remove(work)
    goals = [g.replace(str(target), str(work), 1) for g in goals]
    goals = goals + [str(work / "bin" / "buildinfo.json")] if goals else None
    cbuild.build(str(paths.source_csrc()), str(work), str(work / "obj"), r.mpicc, r.cflags,
                 r.cc, blas_flags(r.blas), goals, fft_name(r.fft))
    (work / "recipe.json").write_text(json.dumps({"stamp": _stamp(r), "sources": digest,
                                                  **asdict(r)}) + "\n")
    if not fresh:
        old = target.with_name(f".{target.name}.old")
        _remove(old)
        if target.exists():
            target.rename(old)
        work.rename(target)
        _remove(old)
    return target / "bin"
