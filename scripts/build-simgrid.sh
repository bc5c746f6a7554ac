#!/bin/sh
# A newer SimGrid than Debian's (3.32), for simulated runs at hundreds of ranks and more
# (docs/simulate.md, "SimGrid's own cost at 1,024 ranks"): SimGrid 3.32 keeps every detached
# send in one list that each finished send walks, so a message costs more the more ranks there
# are; 3.34 and later keep a set. Built from PyPI's source release (the package registry; the
# Python bindings left out), installed in PREFIX, in about 12 minutes on 2 cores.
#
#   sh scripts/build-simgrid.sh [VERSION [PREFIX]]      # default 4.1 /opt/simgrid-VERSION
#   hpceval build --name smpi-4.1 --mpicc /opt/simgrid-4.1/bin/smpicc
#   hpceval run study --build smpi-4.1 --simulate nodes=64,ppn=16 --budget 1h
#
# A build made with that smpicc runs under the smpirun beside it (hpceval/simulate/session.py,
# use_simgrid_of). Nothing is done when PREFIX already holds that version.
set -eu
version=${1:-4.1}
prefix=${2:-/opt/simgrid-$version}
jobs=$(nproc 2>/dev/null || echo 2)

if "$prefix/bin/smpicc" --version 2>/dev/null | grep -qx "SimGrid version $version"; then
    echo "simgrid $version: already in $prefix"
    exit 0
fi
for tool in cmake g++ gfortran python3; do
    command -v "$tool" >/dev/null 2>&1 || { echo "build-simgrid: $tool is missing (apt-get install cmake g++ gfortran python3)" >&2; exit 2; }
done
[ -e /usr/include/boost/version.hpp ] || { echo "build-simgrid: Boost headers are missing (apt-get install libboost-dev libboost-context-dev libboost-stacktrace-dev)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
python3 -m pip download --quiet --no-deps --no-binary :all: -d "$work" "simgrid==$version"
tar xzf "$work"/simgrid-"$version".tar.gz -C "$work"
mkdir "$work/build"
cd "$work/build"
cmake "$work/simgrid-$version" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
    -Denable_python=OFF -Denable_smpi=ON -Denable_compile_optimizations=ON \
    -Denable_documentation=OFF -Denable_model-checking=OFF >"$work/cmake.log" 2>&1 \
    || { tail -20 "$work/cmake.log" >&2; echo "build-simgrid: cmake failed" >&2; exit 1; }
make -j"$jobs" >"$work/make.log" 2>&1 || { tail -20 "$work/make.log" >&2; echo "build-simgrid: make failed" >&2; exit 1; }
cmake --install . >"$work/install.log" 2>&1 || { tail -20 "$work/install.log" >&2; exit 1; }
"$prefix/bin/smpicc" --version
echo "simgrid $version: installed in $prefix"
