#!/bin/sh
# A real EasyBuild build of hpceval on this machine (docs/ci.md, "EasyBuild"), with the system's
# Open MPI, FFTW, OpenBLAS and a Python as external modules: the foss/2025a easyconfig would
# first build GCC, Open MPI and the rest from source (hours on 2 cores), so this build uses
# packaging/easybuild/hpceval-0.1.0-system-externals.eb (toolchain SYSTEM). Too slow for
# `make test` (a few minutes); benchmarks/README.md has what it took.
#
#   sh benchmarks/easybuild_build.sh [WORK]          (default /tmp/hpceval-easybuild)
#
# WORK gets: Lmod modules for Debian's Open MPI, FFTW and OpenBLAS (all in /usr) and for a venv
# holding hpceval's Python dependencies (pip; Debian 12's setuptools is older than the 77 that
# pyproject builds with), EasyBuild's metadata for them, the sdist of this checkout, and
# EasyBuild's prefix (software/, modules/). EasyBuild and Lmod: `make tools`.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-/tmp/hpceval-easybuild}
TOOLS=${HPCEVAL_TOOLS:-$ROOT/.venv-tools}
LMOD_CMD=$(ls /usr/share/lmod/*/libexec/lmod | tail -1)
MPI=$(mpirun --version | sed -n 's/.*Open MPI) \([0-9.]*\).*/\1/p')
FFTW=$(pkg-config --modversion fftw3)
OPENBLAS=$(pkg-config --modversion openblas)
rm -rf "$WORK" && mkdir -p "$WORK/modules/all" "$WORK/src"

python3 -m venv "$WORK/python"
"$WORK/python/bin/pip" -q install 'setuptools>=77' wheel numpy scipy matplotlib jinja2 rich jsonschema
PY=$("$WORK/python/bin/python" -c 'import platform; print(platform.python_version())')

module() {     # NAME VERSION PREFIX: a module file and EasyBuild's metadata for it
    mkdir -p "$WORK/modules/all/$1"
    printf 'whatis("%s %s in %s, external to EasyBuild")\n' "$1" "$2" "$3" > "$WORK/modules/all/$1/$2.lua"
    [ "$3" = /usr ] || printf 'prepend_path("PATH", "%s/bin")\n' "$3" >> "$WORK/modules/all/$1/$2.lua"
    printf '[%s/%s]\nname = %s\nversion = %s\nprefix = %s\n\n' "$1" "$2" "$1" "$2" "$3" >> "$WORK/metadata.cfg"
}
module OpenMPI "$MPI" /usr
module FFTW "$FFTW" /usr
module OpenBLAS "$OPENBLAS" /usr
module Python "$PY" "$WORK/python"

# The easyconfig names the external modules' versions: this machine's.
sed -e "s|'Python/[0-9.]*'|'Python/$PY'|" -e "s|'OpenMPI/[0-9.]*'|'OpenMPI/$MPI'|" \
    -e "s|'FFTW/[0-9.]*'|'FFTW/$FFTW'|" -e "s|'OpenBLAS/[0-9.]*'|'OpenBLAS/$OPENBLAS'|" \
    "$ROOT/packaging/easybuild/hpceval-0.1.0-system-externals.eb" > "$WORK/hpceval-0.1.0-system-externals.eb"
(cd "$ROOT" && "$WORK/python/bin/python" setup.py -q sdist -d "$WORK/src")

start=$(date +%s)
env PATH="$TOOLS/bin:$PATH" LMOD_CMD="$LMOD_CMD" MODULEPATH="$WORK/modules/all" \
    "$TOOLS/bin/eb" "$WORK/hpceval-0.1.0-system-externals.eb" \
    --external-modules-metadata="$WORK/metadata.cfg" --sourcepath="$WORK/src" \
    --prefix="$WORK/eb" --parallel=2 --allow-use-as-root-and-accept-consequences
echo "eb: $(( $(date +%s) - start )) s"

# The installed module: hpceval runs a ping-pong with the C core EasyBuild built.
env LMOD_CMD="$LMOD_CMD" MODULEPATH="$WORK/eb/modules/all:$WORK/modules/all" sh -c '
    eval "$($LMOD_CMD sh load hpceval)"
    command -v hpceval
    HPCEVAL_DB="$0/check.sqlite" XDG_DATA_HOME="$0/data" hpceval run pingpong --set sizes=8,1M' "$WORK"
