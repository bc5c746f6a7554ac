#!/bin/sh
# Install what hpceval needs and this machine lacks: a C compiler, MPI (Debian's Open MPI)
# and hwloc, and Python's venv module; with HPCEVAL_BROWSER=1 (make test) also chromium for the
# report's browser test. Only missing pieces are installed, so a machine that already has MPICH
# (or a site MPI on PATH, or MPICC=...) keeps it. With HPCEVAL_MPICH=1 (make test, make
# build-mpich) also Debian's MPICH beside Open MPI; with HPCEVAL_VCLUSTER=1 (make test) the tools
# of the virtual cluster and its tests (scripts/vcluster: ip, umount; tests/cluster: setpriv);
# with HPCEVAL_SLURM=1 (make test) Debian's Slurm and munge for `vcluster up N --slurm`; with
# HPCEVAL_OTF2=1 (make test) otf2-tools (otf2-print).
# HPCEVAL_BUILDS=1 (make test) the reference BLAS and LAPACK (libblas3, liblapack3).
# ScaLAPACK for the dense kernel: Open MPI's always, MPICH's with HPCEVAL_MPICH=1.
# HPCEVAL_SMPI=1 (make test, make build-smpi) SimGrid's SMPI (smpicc, smpirun: libsimgrid-dev).
# HPCEVAL_TOOLS=1 (make test, make tools) Lmod, the modules tool EasyBuild needs (eb --dry-run).
# HPCEVAL_CCACHE=1 (make test) ccache, which make test's compiles go through.
set -eu
MPICC="${MPICC:-mpicc}"
pkgs=""
command -v make >/dev/null 2>&1 || pkgs="$pkgs make"
command -v cc >/dev/null 2>&1 || pkgs="$pkgs gcc libc6-dev"
if ! command -v "$MPICC" >/dev/null 2>&1; then
    pkgs="$pkgs openmpi-bin libopenmpi-dev"
fi
command -v lstopo-no-graphics >/dev/null 2>&1 || command -v hwloc-ls >/dev/null 2>&1 || pkgs="$pkgs hwloc"
# The sst kernel (csrc/kernels) links FFTW and a CBLAS (OpenBLAS).
[ -f /usr/include/fftw3.h ] || pkgs="$pkgs libfftw3-dev"
ls /usr/lib/libopenblas.so /usr/lib/*/libopenblas.so 2>/dev/null | grep -q . || pkgs="$pkgs libopenblas-dev"
# The dense kernel (csrc/kernels/dense.c) links ScaLAPACK: Debian builds it once per MPI, so the
# Open MPI build's (with Debian's Open MPI) and, beside MPICH, MPICH's.
scalapack() {
    ls /usr/lib/*/"libscalapack-$1.so" >/dev/null 2>&1 || pkgs="$pkgs libscalapack-$1-dev"
}
if command -v mpicc.openmpi >/dev/null 2>&1 || ! command -v "$MPICC" >/dev/null 2>&1; then
    scalapack openmpi
fi
if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    pkgs="$pkgs python3-venv"
fi
command -v python3 >/dev/null 2>&1 || pkgs="$pkgs python3 python3-venv"
# The report's browser test (make test sets HPCEVAL_BROWSER=1; make quick does not need it).
if [ "${HPCEVAL_BROWSER:-0}" = 1 ] && ! command -v chromium >/dev/null 2>&1 \
        && ! command -v chromium-browser >/dev/null 2>&1; then
    pkgs="$pkgs chromium"
fi
# MPICH beside Open MPI: its wrapper and launcher carry the .mpich suffix (docs/vcluster.md).
if [ "${HPCEVAL_MPICH:-0}" = 1 ] && { ! command -v mpicc.mpich >/dev/null 2>&1 \
        || ! command -v mpiexec.mpich >/dev/null 2>&1; }; then
    pkgs="$pkgs mpich libmpich-dev"
fi
if [ "${HPCEVAL_MPICH:-0}" = 1 ]; then
    scalapack mpich
fi
if [ "${HPCEVAL_VCLUSTER:-0}" = 1 ]; then
    command -v ip >/dev/null 2>&1 || pkgs="$pkgs iproute2"
    command -v umount >/dev/null 2>&1 || pkgs="$pkgs mount"
    command -v setpriv >/dev/null 2>&1 || pkgs="$pkgs util-linux"
fi
# otf2-print, which the OTF2 export's test reads archives with (make test sets HPCEVAL_OTF2=1).
if [ "${HPCEVAL_OTF2:-0}" = 1 ] && ! command -v otf2-print >/dev/null 2>&1; then
    pkgs="$pkgs otf2-tools"
fi
# The reference BLAS and LAPACK a build variant links (hpceval/buildvariants.py; its test).
if [ "${HPCEVAL_BUILDS:-0}" = 1 ]; then
    ls /usr/lib/*/blas/libblas.so.3 >/dev/null 2>&1 || pkgs="$pkgs libblas3"
    ls /usr/lib/*/lapack/liblapack.so.3 >/dev/null 2>&1 || pkgs="$pkgs liblapack3"
fi
# Co-Array Fortran over Open MPI (OpenCoarrays, with gfortran): shmem-halo's caf methods
# (docs/shmem_halo.md; make test sets HPCEVAL_CAF=1).
if [ "${HPCEVAL_CAF:-0}" = 1 ] && ! ls /usr/lib/*/open-coarrays/openmpi/lib/libcaf_openmpi.a \
        >/dev/null 2>&1; then
    pkgs="$pkgs libcoarrays-openmpi-dev"
fi
# SimGrid SMPI: simulated platforms (docs/simulate.md; make test sets HPCEVAL_SMPI=1).
if [ "${HPCEVAL_SMPI:-0}" = 1 ] && { ! command -v smpicc >/dev/null 2>&1 \
        || ! command -v smpirun >/dev/null 2>&1; }; then
    pkgs="$pkgs libsimgrid-dev"
fi
# Lmod: EasyBuild will not start without a modules tool (tests/packaging/test_easybuild.py).
if [ "${HPCEVAL_TOOLS:-0}" = 1 ] && ! ls /usr/share/lmod/*/libexec/lmod >/dev/null 2>&1; then
    pkgs="$pkgs lmod"
fi
if [ "${HPCEVAL_SLURM:-0}" = 1 ]; then
    command -v slurmctld >/dev/null 2>&1 || pkgs="$pkgs slurmctld"
    command -v slurmd >/dev/null 2>&1 || pkgs="$pkgs slurmd"
    command -v sbatch >/dev/null 2>&1 || pkgs="$pkgs slurm-client"
    command -v munged >/dev/null 2>&1 || pkgs="$pkgs munge"
    command -v nsenter >/dev/null 2>&1 || pkgs="$pkgs util-linux"
fi
# ccache: make test's builds and the tests' own builds of the same sources (make test puts its
# compiler names first on PATH).
if [ "${HPCEVAL_CCACHE:-0}" = 1 ] && [ ! -e /usr/lib/ccache/gcc ]; then
    pkgs="$pkgs ccache"
fi
[ -z "$pkgs" ] && exit 0

# Debian gives Open MPI the higher alternatives priority, but a machine in manual mode (or
# other priorities) could switch mpicc/mpirun to MPICH: put Open MPI back when it was the
# default before, so build/bin stays an Open MPI build.
mpi_alternative() {
    update-alternatives --query "$1" 2>/dev/null | sed -n 's/^Value: //p'
}
keep_openmpi_default() {
    case "$1" in *openmpi*) ;; *) return 0 ;; esac
    case "$(mpi_alternative mpi)" in *openmpi*) return 0 ;; esac
    echo "hpceval: installing MPICH switched mpicc to MPICH; restoring Open MPI as the default"
    $SUDO update-alternatives --quiet --set mpi "$1"
    $SUDO update-alternatives --quiet --set mpirun /usr/bin/mpirun.openmpi
}

echo "hpceval: installing missing packages:$pkgs"
if [ "$(id -u)" = 0 ]; then SUDO=""
elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"
else
    echo "hpceval: error: need root or sudo to install:$pkgs (or install them and re-run)" >&2
    exit 2
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "hpceval: error: no apt-get here; install:$pkgs (or set MPICC to your MPI compiler wrapper)" >&2
    exit 2
fi
export DEBIAN_FRONTEND=noninteractive
# apt's chatter (debconf notes, dpkg progress) goes to a log that is shown only on failure.
log=$(mktemp)
quietly() {
    if ! "$@" >"$log" 2>&1; then
        cat "$log" >&2
        echo "hpceval: error: '$*' failed (output above)" >&2
        rm -f "$log"
        exit 1
    fi
}
quietly $SUDO apt-get update -qq
# Which MPI the plain names (mpicc, mpirun) are before: installing MPICH must not change them.
mpi_before=$(mpi_alternative mpi)
# shellcheck disable=SC2086
quietly $SUDO apt-get install -y -qq --no-install-recommends $pkgs
rm -f "$log"
keep_openmpi_default "$mpi_before"
