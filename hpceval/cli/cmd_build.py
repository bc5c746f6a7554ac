"""hpceval build: rebuild the C core against another MPI (the site's, not the one pip saw) into the
user's data directory, through csrc/Makefile like `pip install` and `make build`. Runs then use
it, and record it in their fingerprint (buildinfo.json: wrapper, MPI flavour, flags)."""
from __future__ import annotations

import argparse
import json
import shutil

from hpceval import cbuild, paths
from hpceval.errors import UsageError
from hpceval.runner.signals import stoppable

NAME = "build"
HELP = ("rebuild the C benchmarks with another MPI compiler wrapper into the user's data "
        "directory; later runs use that build (--remove: back to the installed one)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mpicc", metavar="PATH", help="MPI compiler wrapper (default $MPICC, else mpicc)")
    p.add_argument("--cflags", metavar="FLAGS", help="C flags instead of csrc/Makefile's "
                   "(-O3 -march=native)")
    p.add_argument("--remove", action="store_true", help="delete the user build: runs use the "
                   "one pip installed (or the checkout's build/bin) again")
    p.add_argument("--name", metavar="NAME", help="a named build beside the others (run it with "
                   "'hpceval run --build NAME'): one of hpceval/buildvariants.py's "
                   "(gcc-O2, gcc-O3, gcc-native, gcc-Ofast, clang-native, refblas, blis, ownfft, "
                   "smpi: SimGrid's smpicc, docs/simulate.md) or a new name with "
                   "--cflags/--cc/--blas/--fft/--mpicc")
    p.add_argument("--cc", metavar="COMPILER", help="with --name: the compiler under the MPI "
                   "wrapper (OMPI_CC, MPICH_CC), e.g. clang")
    p.add_argument("--blas", choices=("openblas", "reference", "blis"),
                   help="with --name: the BLAS and LAPACK to link")
    p.add_argument("--fft", choices=("fftw", "own"),
                   help="with --name: the spectral models' FFT (FFTW, or hpceval's own)")


def _named(args: argparse.Namespace) -> int:
    from hpceval import buildvariants as bv
    bv.check_name(args.name)
    if args.remove:
        raise UsageError("--name takes no --remove")
    known = bv.VARIANTS.get(args.name)
    custom = args.cflags or args.cc or args.blas or args.fft or (
        args.mpicc and not (known and known.mpicc == args.mpicc))
    r = bv.Recipe(args.name, args.cflags or bv.NATIVE, args.cc, args.blas or "openblas",
                  args.mpicc, args.fft or "fftw") if custom else bv.recipe(args.name)
    try:
        bindir = bv.ensure_built(r)
    except cbuild.BuildError as exc:
        raise UsageError(str(exc)) from None
    info = json.loads((bindir / "buildinfo.json").read_text())
    print(f"hpceval: built '{r.name}' ({info.get('compiler')}, {info.get('cflags')}, BLAS "
          f"{info.get('blas')}, FFT {info.get('fft', 'fftw')}) into {bindir.parent}; use it with 'hpceval run --build {r.name}'")
    return 0


@stoppable        # a stop signal ends the build's processes (cbuild.run_guarded) and says so
def execute(args: argparse.Namespace) -> int:
    try:
        cbuild.check_flags(args.cflags)
        cbuild.check_flags(args.cc, "--cc")
    except cbuild.BuildError as exc:
        raise UsageError(str(exc)) from None
    if args.name is not None:
        return _named(args)
    if args.cc or args.blas or args.fft:
        raise UsageError("--cc, --blas and --fft make a named build: give --name NAME")
    target = paths.user_build()
    if args.remove:
        if args.mpicc or args.cflags:
            raise UsageError("--remove takes no --mpicc or --cflags")
        shutil.rmtree(target, ignore_errors=True)
        print(f"hpceval: removed {target}; runs use {paths.bin_dir()}")
        return 0
    csrc = paths.source_csrc()
    if not (csrc / "Makefile").is_file():
        raise UsageError(f"the C sources are not installed ({csrc}): reinstall hpceval with pip")
    # Built beside the current build and swapped in whole: a failed build leaves the old one.
    fresh = target.with_name(target.name + ".new")
    shutil.rmtree(fresh, ignore_errors=True)
    try:
        wrapper = cbuild.build(str(csrc), str(fresh), str(fresh / "obj"), args.mpicc, args.cflags)
    except cbuild.BuildError as exc:
        raise UsageError(str(exc)) from None
    shutil.rmtree(fresh / "obj")
    old = target.with_name(target.name + ".old")
    if target.exists():
        target.rename(old)
    fresh.rename(target)
    shutil.rmtree(old, ignore_errors=True)
    info = json.loads((target / "bin" / "buildinfo.json").read_text())
    print(f"hpceval: built the C core with {wrapper} ({info.get('mpi') or 'unknown MPI'}, "
          f"{info.get('cflags')}) into {target}; runs use it now")
    return 0
