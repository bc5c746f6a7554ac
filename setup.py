"""`pip install .` builds the C core too: csrc/Makefile (the one build description, also used by
`make build` and `hpceval build`) compiles the benchmarks, the trace library and buildinfo.json
into hpceval/_build inside the package. The checks before it turn a missing MPI compiler
wrapper, FFTW or BLAS into one line naming the package to install."""
import os
import shutil
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "hpceval"))
import cbuild  # noqa: E402  (hpceval/cbuild.py without importing hpceval and its dependencies)

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildWithCore(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return                        # an editable checkout uses build/bin (make build)
        package = os.path.join(os.path.abspath(self.build_lib), "hpceval")
        # The sources go along so `hpceval build` can rebuild against the site's MPI later.
        shutil.copytree(os.path.join(HERE, "csrc"), os.path.join(package, "_csrc"),
                        dirs_exist_ok=True)
        target = os.path.join(package, "_build")
        objdir = os.path.join(os.path.abspath(self.get_finalized_command("build").build_temp),
                              "hpceval-obj")
        try:
            mpicc = cbuild.build(os.path.join(HERE, "csrc"), target, objdir,
                                 os.environ.get("MPICC"), os.environ.get("CFLAGS"))
        except cbuild.BuildError as exc:
            sys.stderr.write(f"hpceval: error: {exc}\n")
            raise SystemExit(2)
        sys.stderr.write(f"hpceval: built the C core with {mpicc}\n")


class BinaryDistribution(Distribution):
    """The wheel holds compiled programs: tag it for this platform, not py3-none-any."""

    def has_ext_modules(self) -> bool:
        return True


setup(cmdclass={"build_py": BuildWithCore}, distclass=BinaryDistribution,
      # setuptools' default build/lib is the C core's build/lib (libhpceval-trace.so) in a checkout.
      options={"build": {"build_base": "build/pip"}})
