#!/bin/sh
# Install what hpceval needs and this machine lacks: a C compiler, MPI (Debian's Open MPI)
# and hwloc, and Python's venv module; with HPCEVAL_BROWSER=1 (make test) also chromium for the
# report's browser test. Only missing pieces are installed, so a machine that already has MPICH
# (or a site MPI on PATH, or MPICC=...) keeps it.
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
if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    pkgs="$pkgs python3-venv"
fi
command -v python3 >/dev/null 2>&1 || pkgs="$pkgs python3 python3-venv"
# The report's browser test (make test sets HPCEVAL_BROWSER=1; make quick does not need it).
if [ "${HPCEVAL_BROWSER:-0}" = 1 ] && ! command -v chromium >/dev/null 2>&1 \
        && ! command -v chromium-browser >/dev/null 2>&1; then
    pkgs="$pkgs chromium"
fi
[ -z "$pkgs" ] && exit 0

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
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
