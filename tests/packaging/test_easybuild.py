"""packaging/easybuild: EasyBuild from PyPI (`make tools`) resolves the shipped easyconfig with
its robot against the easyconfigs EasyBuild ships (`eb --dry-run`): the foss toolchain and every
dependency found, hpceval's own module last (one that does not resolve fails the dry run:
"Missing dependencies: matplotlib/0.0.1-foss-2025a", seen by hand; 10-15 s a dry run)."""
from __future__ import annotations

import glob
import os
import re
import subprocess

from helpers import ROOT, skip_unless_required, tool

EASYCONFIG = ROOT / "packaging" / "easybuild" / "hpceval-0.1.0-foss-2025a.eb"


def _eb(tmp_path, easyconfig):
    eb = tool("eb")
    lmod = sorted(glob.glob("/usr/share/lmod/*/libexec/lmod"))
    if not lmod:
        skip_unless_required("no Lmod (HPCEVAL_TOOLS=1 sh scripts/install-deps.sh)",
                             "HPCEVAL_REQUIRE_TOOLS")
    # eb finds its Python on PATH; it refuses root unless told (CI runs as root).
    env = {**os.environ, "PATH": f"{eb.parent}:{os.environ['PATH']}", "LMOD_CMD": lmod[-1],
           "EASYBUILD_PREFIX": str(tmp_path / "eb"), "EASYBUILD_TMPDIR": str(tmp_path / "tmp")}
    return subprocess.run([str(eb), str(easyconfig), "--dry-run", "--robot",
                           "--allow-use-as-root-and-accept-consequences"],
                          capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path,
                          stdin=subprocess.DEVNULL)


def test_eb_dry_run_resolves_the_easyconfig_with_the_foss_toolchain(tmp_path):
    proc = _eb(tmp_path, EASYCONFIG)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    modules = re.findall(r"^ \* \[.\] \S+ \(module: (\S+)\)$", proc.stdout, re.MULTILINE)
    assert modules[-1] == "hpceval/0.1.0-foss-2025a", proc.stdout
    for needed in ("foss/2025a", "OpenMPI/5.0.7-GCC-14.2.0", "FFTW/3.3.10-GCC-14.2.0",
                   "OpenBLAS/0.3.29-GCC-14.2.0", "ScaLAPACK/2.2.2-gompi-2025a-fb",
                   "Python/3.13.1-GCCcore-14.2.0", "SciPy-bundle/2025.06-gfbf-2025a",
                   "matplotlib/3.10.3-gfbf-2025a", "Python-bundle-PyPI/2025.04-GCCcore-14.2.0"):
        assert needed in modules, needed

