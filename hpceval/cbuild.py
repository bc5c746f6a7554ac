"""Builds the C core (benchmarks, trace library, buildinfo.json) through csrc/Makefile, the one
build description: `pip install` (setup.py) and `hpceval build` call this, `make build` calls
the Makefile directly. Imported by setup.py before hpceval is installed, so it uses only the
standard library and raises its own BuildError (one line each)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List, Optional


class BuildError(Exception):
    """Something the build needs is missing or broken; the message is one line."""


_MPI_PACKAGES = "install libopenmpi-dev or mpich (Debian), openmpi-devel or mpich-devel (RPM)"
# Libraries the areas link (csrc/AREA/lib/libs): header to compile against, what to install.
_LIBRARIES = {
    "-lfftw3": ("fftw3.h", "fftw_plan p = 0; (void)p; fftw_cleanup();",
                "FFTW", "libfftw3-dev (Debian) or fftw-devel (RPM)"),
    "-lopenblas": ("cblas.h", "double a = 1; cblas_daxpy(1, 1.0, &a, 1, &a, 1);",
                   "OpenBLAS", "libopenblas-dev (Debian) or openblas-devel (RPM)"),
}
_MPI_PROGRAM = "#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); return MPI_Finalize(); }\n"


# A flag reaches make's command line and its recipes' shell: only characters with no meaning to
# either ($ expands in make, ` ; | & < > ( ) quotes in the shell) are accepted.
_FLAG = re.compile(r"[A-Za-z0-9_+=,.:/@%-]+")


def check_flags(flags: Optional[str], option: str = "--cflags") -> Optional[str]:
    """`flags` unchanged when every word is a plain compiler flag, else BuildError."""
    for word in (flags or "").split():
        if not _FLAG.fullmatch(word):
            raise BuildError(f"{option}: {word!r} is not a plain compiler flag (letters, digits "
                             "and _+=,.:/@%- only; no $, quotes, backquotes or shell characters)")
    return flags


def find_mpicc(requested: Optional[str] = None) -> str:
    """The MPI compiler wrapper: the one asked for (--mpicc, $MPICC), else mpicc on PATH."""
    name = requested or os.environ.get("MPICC") or "mpicc"
    found = shutil.which(name)
    if found:
        return found
    if os.path.basename(name).startswith("smpi"):
        raise BuildError(f"SimGrid's {name!r} not found: install libsimgrid-dev (Debian), "
                         "docs/simulate.md")
    if requested or os.environ.get("MPICC"):
        raise BuildError(f"MPI compiler wrapper {name!r} (MPICC) not found or not executable: "
                         f"set MPICC to your MPI's mpicc, or {_MPI_PACKAGES}")
    raise BuildError(f"no MPI compiler wrapper 'mpicc' on PATH: {_MPI_PACKAGES}, or set MPICC")


# The build's guardian: the leader of the build's process group, it reads a pipe whose write
# end only the driver holds. The read returns (EOF) when the driver closes it or dies, however
# it dies (SIGKILL included, when no handler of ours runs); it then kills the whole group:
# make, mpicc and the compilers' cc1, as, ld (PR_SET_PDEATHSIG would reach make alone).
_GUARDIAN = "import os, sys; sys.stdin.buffer.read(); os.killpg(0, 9)"


def run_guarded(argv: List[str], timeout: Optional[float] = None,
                **kw) -> subprocess.CompletedProcess:
    """subprocess.run for a build step (make, a compiler check): it runs in the guardian's
    process group, away from the terminal's Ctrl-C, and every process of it ends with the
    driver, or when the step ends, times out or is interrupted (then the exception goes on)."""
    r, w = os.pipe()
    try:
        guard = subprocess.Popen([sys.executable, "-I", "-S", "-c", _GUARDIAN], stdin=r,
                                 stdout=subprocess.DEVNULL, preexec_fn=os.setpgrp)
    finally:
        os.close(r)
    proc = None
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                preexec_fn=lambda: os.setpgid(0, guard.pid), **kw)
        out, err = proc.communicate(timeout=timeout)
        return subprocess.CompletedProcess(argv, proc.returncode, out, err)
    finally:
        os.close(w)                    # the guardian ends what is left of the group, itself last
        guard.wait()
        if proc is not None:
            proc.wait()


def _compiles(mpicc: str, source: str, flags: List[str], workdir: str,
              env: Optional[dict] = None) -> Optional[str]:
    """None when `source` compiles and links, else the compiler's first error line."""
    src = os.path.join(workdir, "probe.c")
    Path(src).write_text(source)
    try:
        proc = run_guarded([mpicc, *flags, src, "-o", os.path.join(workdir, "probe"), *flags],
                           timeout=120, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, env=env)
    except OSError as exc:
        return str(exc)
    if proc.returncode == 0:
        return None
    lines = [ln for ln in proc.stderr.splitlines() if "error" in ln.lower()] or \
        proc.stderr.splitlines() or [f"exit status {proc.returncode}"]
    return lines[0].strip()


def _area_libraries(csrc: Path) -> List[str]:
    flags: List[str] = []
    for libs in sorted(csrc.glob("*/lib/libs")):
        for line in libs.read_text().splitlines():
            flags += [f for f in line.split("#")[0].split() if f not in flags]
    return flags


def check(mpicc: str, csrc: Path, cflags: Optional[str] = None,
          blas: Optional[str] = None, env: Optional[dict] = None) -> None:
    """Fail early, in one line, on what would otherwise be a page of compiler errors. `blas`:
    the linker flags that replace -lopenblas (a build variant)."""
    extra = (cflags or "").split()
    with tempfile.TemporaryDirectory(prefix="hpceval-check-") as work:
        error = _compiles(mpicc, _MPI_PROGRAM, extra, work, env)
        if error:
            raise BuildError(f"{mpicc} (MPICC) cannot build an MPI program ({error}): "
                             f"set MPICC to a working MPI compiler wrapper, or {_MPI_PACKAGES}")
        for flag in _area_libraries(csrc):
            if flag not in _LIBRARIES:
                continue
            header, body, name, packages = _LIBRARIES[flag]
            link = blas.split() if blas and flag == "-lopenblas" else [flag]
            source = f"#include <{header}>\nint main(void) {{ {body} return 0; }}\n"
            error = _compiles(mpicc, source, extra + link, work, env)
            if error:
                raise BuildError(f"{name} not found ({header}, {flag}: {error}): install "
                                 f"{packages}, or point CFLAGS (-I, -L) at it")


def _first_error(log: str) -> str:
    """The compiler's first error line of a failed build (the rest is in the log)."""
    lines = [ln.strip() for ln in Path(log).read_text(errors="replace").splitlines() if ln.strip()]
    errors = [ln for ln in lines if "error" in ln.lower()]
    return (errors or lines or ["no output"])[0][:200]


def build(csrc: str, target: str, objdir: str, mpicc: Optional[str] = None,
          cflags: Optional[str] = None, cc: Optional[str] = None, blas: Optional[str] = None,
          goals: Optional[List[str]] = None, fft: Optional[str] = None) -> str:
    """Compile the C core (or only `goals`, paths below target) into target/bin, target/lib;
    returns the MPI wrapper used. `cc`: the compiler under the wrapper (OMPI_CC, MPICH_CC);
    `blas`: linker flags instead of -lopenblas; `fft`: csrc/Makefile's FFT (own) instead of
    FFTW."""
    if not shutil.which("make"):
        raise BuildError("no 'make' on PATH: install make (Debian and RPM)")
    check_flags(cflags)
    check_flags(cc, "--cc")
    wrapper = find_mpicc(mpicc)
    env = dict(os.environ, **({"OMPI_CC": cc, "MPICH_CC": cc} if cc else {}))
    if cc and not shutil.which(cc):
        raise BuildError(f"compiler {cc!r} not found: install it (Debian: apt-get install {cc})")
    check(wrapper, Path(csrc), cflags, blas, env)
    os.makedirs(objdir, exist_ok=True)
    # every core: one file at a time left all but one idle (the core is ~60 files)
    argv = ["make", "-s", f"-j{os.cpu_count() or 1}", "-C", csrc, *(goals or ["core"]),
            f"BUILD={target}",
            f"OBJDIR={objdir}", f"MPICC={wrapper}"] + ([f"CFLAGS={cflags}"] if cflags else []) \
        + ([f"BLAS={blas}"] if blas else []) + ([f"FFT={fft}"] if fft else [])
    log = os.path.join(objdir, "build.log")
    with open(log, "w") as out:
        proc = run_guarded(argv, stdout=out, stderr=subprocess.STDOUT, env=env)
    if proc.returncode != 0:
        raise BuildError(f"building the C core with {wrapper} failed ({_first_error(log)}): "
                         f"see {log}")
    for line in Path(log).read_text(errors="replace").splitlines():
        if line.startswith("hpceval: ") and " left out " in line:   # dense without ScaLAPACK
            sys.stderr.write(line + "\n")
    return wrapper
