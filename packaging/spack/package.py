# Spack recipe for hpceval: copy this directory into a Spack repository as packages/hpceval/
# (spack repo create; cp packaging/spack/package.py REPO/packages/hpceval/), then
#   spack install hpceval ^openmpi        (or ^mpich, ^cray-mpich, the site's MPI as external)
# pip builds the C core through csrc/Makefile (setup.py), with Spack's MPI wrapper and the
# FFTW and OpenBLAS that Spack built: the same single build description as `make build`.
from spack.package import *


class Hpceval(PythonPackage):
    """Evaluate a parallel computer: memory, communication and kernel benchmarks in C11 + MPI,
    measured with statistics, stored in SQLite with the machine's fingerprint, compared and
    reported."""

    # Where the centre gets hpceval from (its mirror of the repository): adjust both.
    homepage = "https://github.com/hpceval/hpceval"
    git = "https://github.com/hpceval/hpceval.git"

    license("MIT")

    version("main", branch="main")

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
    depends_on("py-setuptools@61:", type="build")
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
