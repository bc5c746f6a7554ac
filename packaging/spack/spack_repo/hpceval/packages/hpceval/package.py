# Spack recipe for hpceval, in a Spack package repository of its own (namespace hpceval, the
# package API v2 of Spack 1.x: docs/ci.md, "Spack"):
#   spack repo add packaging/spack/spack_repo/hpceval
#   spack install hpceval@0.1.0 dev_path=$PWD ^openmpi    (the site's MPI as an external)
# hpceval has no released source tarball: the recipe builds the checkout it is given (dev_path,
# or `spack develop --path CHECKOUT hpceval@0.1.0` in an environment); a centre with a mirror of
# the repository adds `git = "..."` and `version("main", branch="main")`.
# pip builds the C core through csrc/Makefile (setup.py), with Spack's MPI wrapper and the
# FFTW and OpenBLAS of the spec: the same single build description as `make build`.
# scripts/spack-check reads it with a real Spack (spack spec, spack install).
from spack_repo.builtin.build_systems.python import PythonPackage

from spack.package import *


class Hpceval(PythonPackage):
    """Evaluate a parallel computer: memory, communication and kernel benchmarks in C11 + MPI,
    measured with statistics, stored in SQLite with the machine's fingerprint, compared and
    reported."""

    license("MIT")

    version("0.1.0")             # from a checkout (dev_path): no released tarball yet

    variant("native", default=False,
            description="compile the benchmarks with -march=native (for the build host's CPU; "
                        "off: Spack's target flags)")
    variant("otf2", default=False,
            description="OTF2 trace export (hpceval trace --format otf2; needs py-otf2 in a repo)")

    depends_on("c", type="build")
    depends_on("gmake", type="build")
    depends_on("mpi")
    depends_on("fftw-api@3")
    # csrc/kernels/lib/libs links -lopenblas and sst includes cblas.h: OpenBLAS, not any BLAS.
    depends_on("openblas")
    depends_on("hwloc", type="run")              # lstopo: the machine's topology

    depends_on("python@3.9:", type=("build", "run"))
    depends_on("py-setuptools@77:", type="build")      # pyproject's build-system (SPDX license)
    depends_on("py-pip", type="build")
    depends_on("py-numpy@1.22:", type=("build", "run"))
    depends_on("py-scipy@1.8:", type=("build", "run"))
    depends_on("py-matplotlib@3.5:", type=("build", "run"))
    depends_on("py-jinja2@3.0:", type=("build", "run"))
    depends_on("py-rich@12:", type=("build", "run"))
    depends_on("py-jsonschema@4.0:", type=("build", "run"))
    depends_on("py-otf2@3:", type="run", when="+otf2")

    def setup_build_environment(self, env):
        # setup.py (hpceval/cbuild.py) reads MPICC and CFLAGS; CFLAGS reaches compile and link.
        spec = self.spec
        env.set("MPICC", spec["mpi"].mpicc)
        flags = ["-O3", "-march=native" if spec.satisfies("+native") else ""]
        for dep in ("fftw-api", "openblas"):
            libs = spec[dep].libs
            flags += [spec[dep].headers.include_flags, libs.search_flags]
            flags += [f"-Wl,-rpath,{d}" for d in libs.directories]
        env.set("CFLAGS", " ".join(f for f in flags if f))

    @run_after("install")
    @on_package_attributes(run_tests=True)
    def check_installed_core(self):
        # pip must have compiled the C core into the installed package (hpceval/_build).
        self.spec["python"].command(
            "-c", "import hpceval.paths as p; "
            "assert (p.package_build() / 'bin' / 'hpceval-pingpong').is_file()")
