"""Two real runs of the same small suite, one under Open MPI and one under MPICH (build-mpich),
shared by the side-by-side comparison's tests (test_sidebyside.py, test_tunedbest.py,
test_modelsacross.py): the SP2 study's old-against-new configuration case, on this machine."""
import shutil

import pytest

from helpers import CLI, FAST, ROOT

MPICH_BIN = ROOT / "build-mpich" / "bin"
# Seven ping-pong sizes (the piecewise fit needs six), LogGP at two sizes, and the barotropic
# proxy's three halo updates on one 2x1 grid at two problem sizes (a tunable proxy with variants
# to pick a best of, and a speed-up against size).
SUITE = ["pingpong", "loggp", "barotropic", "--np", "2", *FAST,
         "--set", "pingpong.refine=0", "--set", "pingpong.sizes=8,64,512,4K,32K,256K,1M",
         "--set", "loggp.sizes=0,64K", "--set", "loggp.train=8",
         "--set", "barotropic.grids=32x32,48x32", "--set", "barotropic.pgrids=2x1",
         "--set", "barotropic.halos=datatype,pack,put", "--set", "barotropic.sums=allreduce",
         "--set", "barotropic.land=none", "--set", "barotropic.mappings=row"]


@pytest.fixture(scope="session")
def two_mpis(tmp_path_factory, bindir):
    """(cli, [Open MPI run, MPICH run] in export form): runs 1 and 2 of cli's database."""
    if not shutil.which("mpiexec.mpich"):
        pytest.fail("MPICH is not installed: 'make test' installs it (HPCEVAL_MPICH=1)")
    if not (MPICH_BIN / "hpceval-pingpong").is_file():
        pytest.fail(f"{MPICH_BIN} is not built: run 'make build-mpich' (make test does)")
    cli = CLI(tmp_path_factory.mktemp("twompis") / "r.sqlite")
    for env in ({}, {"HPCEVAL_BINDIR": str(MPICH_BIN)}):
        p = cli("run", *SUITE, "--tag", "mpich" if env else "openmpi", env=env)
        assert p.returncode == 0, p.stderr
    return cli, cli.export("1", "2")
