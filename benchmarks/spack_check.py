"""The Spack recipe (packaging/spack) read by a real Spack: `spack spec hpceval` with this
machine's MPI, FFTW, OpenBLAS, hwloc, Python and Python packages declared as externals, and with
--install `spack install hpceval` from this checkout, then the installed hpceval runs a ping-pong.
Too slow for `make test` (a concretisation takes a minute or two on 2 cores, the install two
more), and a Spack checkout is not on a fresh machine: benchmarks/README.md has the figures.

    .venv/bin/python benchmarks/spack_check.py --spack SPACK --packages SPACK_PACKAGES \\
        [--compiler-wrapper CHECKOUT] [--install] [--work DIR]

The system Python's packages are the externals: on Debian 12 `apt-get install python3-numpy
python3-scipy python3-matplotlib python3-jinja2 python3-rich python3-jsonschema` first (beside
libopenmpi-dev, libfftw3-dev, libopenblas-dev and hwloc, which scripts/install-deps.sh installs).
SPACK is a checkout of spack/spack (1.x), SPACK_PACKAGES one of spack/spack-packages (the
builtin repository); Spack runs on the tools venv's Python (`make tools`), whose clingo spares
Spack its bootstrap download. Everything Spack writes goes to --work (default
/tmp/hpceval-spack): its configuration (one scope, -C), install tree, stage and caches; the
user's ~/.spack and the checkout's etc/ are not read (SPACK_DISABLE_LOCAL_CONFIG).

Without the network Spack can fetch nothing: everything hpceval needs is external except
compiler-wrapper (Spack's compiler wrapper, which every C build needs) and python-venv:
--compiler-wrapper names a git checkout of spack/compiler-wrapper whose tag is archived into a
local mirror (its release tarball's checksum differs from the archive's: --no-checksum);
python-venv is a venv of the system Python with its site packages. setuptools>=77 (pyproject's
build-system) and packaging>=24.2 (which it needs) are newer than Debian 12's: pip puts them in a
prefix of their own, the py-setuptools external.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPO = ROOT / "packaging" / "spack" / "spack_repo" / "hpceval"
TOOLS = Path(os.environ.get("HPCEVAL_TOOLS", ROOT / ".venv-tools"))
SYSTEM_PYTHON = "/usr/bin/python3"
# The Python packages the recipe depends on, as the system Python has them (Debian: python3-X).
PY_EXTERNALS = ("numpy", "scipy", "matplotlib", "jinja2", "rich", "jsonschema", "pip", "wheel")
BUILD_PINS = ("setuptools==80.9.0", "packaging==25.0")


def output(*argv: str) -> str:
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def first_version(text: str) -> str:
    return re.search(r"(\d+\.\d+(?:\.\d+)?)", text).group(1)


def system_versions() -> dict:
    """The versions of the system's packages that become Spack externals (prefix /usr)."""
    py = output(SYSTEM_PYTHON, "-c", "import json, importlib.metadata as m; print(json.dumps("
                f"{{p: m.version(p) for p in {PY_EXTERNALS!r}}}))")
    return {
        "gcc": output("gcc", "-dumpfullversion").strip(),
        "openmpi": first_version(output("mpirun", "--version")),
        "fftw": output("pkg-config", "--modversion", "fftw3").strip(),
        "openblas": output("pkg-config", "--modversion", "openblas").strip(),
        "hwloc": first_version(output("lstopo-no-graphics", "--version")),
        "gmake": first_version(output("make", "--version")),
        "python": first_version(output(SYSTEM_PYTHON, "--version")),
        **{f"py-{name}": v for name, v in json.loads(py).items()},
    }


def site_dir() -> str:
    """Where Spack looks for an external Python package below its prefix (the system Python's
    scheme: Debian's is local/lib/python3.X/dist-packages)."""
    return output(SYSTEM_PYTHON, "-c", "import sysconfig; print(sysconfig.get_path('purelib', "
                  "vars={'base': '@', 'platbase': '@'}))").strip().lstrip("@/")


def external(name: str, version: str, prefix: str, extra: str = "") -> str:
    return (f"  {name}:\n    buildable: false\n"
            f"    externals:\n    - spec: {name}@{version}{extra}\n      prefix: {prefix}\n")


def packages_yaml(versions: dict, work: Path) -> str:
    gcc = ("    - spec: gcc@{v} languages:='c,c++,fortran'\n      prefix: /usr\n"
           "      extra_attributes:\n        compilers: {{c: /usr/bin/gcc, cxx: /usr/bin/g++, "
           "fortran: /usr/bin/gfortran}}\n").format(v=versions["gcc"])
    text = ("packages:\n  all:\n    providers:\n      mpi: [openmpi]\n      fftw-api: [fftw]\n"
            "  mpi:\n    buildable: false\n"
            f"  gcc:\n    buildable: false\n    externals:\n{gcc}")
    for name, version in versions.items():
        if name != "gcc":
            text += external(name, version, "/usr")
    text += external("py-setuptools", BUILD_PINS[0].split("==")[1], str(work / "pyext"))
    return text + external("python-venv", "1.0", str(work / "pyvenv"))


def prepare(args: argparse.Namespace) -> dict:
    work = args.work
    shutil.rmtree(work, ignore_errors=True)
    (work / "config").mkdir(parents=True)
    versions = system_versions()
    subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--system-site-packages", "--without-pip",
                    str(work / "pyvenv")], check=True)
    subprocess.run([str(TOOLS / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps",
                    "--target", str(work / "pyext" / site_dir()), *BUILD_PINS], check=True)
    conf = work / "config"
    (conf / "repos.yaml").write_text(
        f"repos:\n  hpceval: {REPO}\n  builtin: {args.packages / 'repos/spack_repo/builtin'}\n")
    (conf / "config.yaml").write_text(
        f"config:\n  install_tree:\n    root: {work / 'opt'}\n  build_stage: [{work / 'stage'}]\n"
        f"  source_cache: {work / 'cache/source'}\n  misc_cache: {work / 'cache/misc'}\n"
        "  build_jobs: 2\n")
    (conf / "packages.yaml").write_text(packages_yaml(versions, work))
    if args.compiler_wrapper:
        mirror_compiler_wrapper(args, work)
    return versions


def mirror_compiler_wrapper(args: argparse.Namespace, work: Path) -> None:
    """compiler-wrapper's tag as a tarball where Spack's mirror layout expects its checksum."""
    recipe = (args.packages / "repos/spack_repo/builtin/packages/compiler_wrapper/package.py")
    version, sha = re.search(r'version\("([\d.]+)", sha256="([0-9a-f]+)"\)',
                             recipe.read_text()).groups()
    target = work / "mirror" / "_source-cache" / "archive" / sha[:2] / f"{sha}.tar.gz"
    target.parent.mkdir(parents=True)
    subprocess.run(["git", "-C", str(args.compiler_wrapper), "archive", "--format=tar.gz",
                    f"--prefix=compiler-wrapper-{version}/", f"v{version}", "-o", str(target)],
                   check=True)
    (work / "config" / "mirrors.yaml").write_text(f"mirrors:\n  local: file://{work / 'mirror'}\n")


def spack(args: argparse.Namespace, *words: str, timeout: float = 3600):
    env = {**os.environ, "SPACK_PYTHON": str(TOOLS / "bin" / "python"),
           "SPACK_DISABLE_LOCAL_CONFIG": "1", "SPACK_USER_CONFIG_PATH": str(args.work / "user"),
           "SPACK_USER_CACHE_PATH": str(args.work / "cache")}
    start = time.monotonic()
    proc = subprocess.run([str(args.spack / "bin" / "spack"), "-C", str(args.work / "config"),
                           *words], capture_output=True, text=True, env=env, timeout=timeout)
    return proc, time.monotonic() - start


def quiet(text: str) -> str:
    """Spack's output without its deprecation warning about externals' Python dependency."""
    return "\n".join(l for l in text.splitlines() if "trying attach a Python dependency" not in l)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--spack", type=Path, required=True, help="a spack/spack checkout (1.x)")
    p.add_argument("--packages", type=Path, required=True, help="a spack/spack-packages checkout")
    p.add_argument("--compiler-wrapper", type=Path, help="a spack/compiler-wrapper checkout")
    p.add_argument("--install", action="store_true", help="also spack install hpceval")
    p.add_argument("--work", type=Path, default=Path("/tmp/hpceval-spack"))
    args = p.parse_args()
    versions = prepare(args)
    print("externals: " + ", ".join(f"{k}@{v}" for k, v in versions.items()))
    proc, spec_s = spack(args, "spec", "-l", "hpceval")
    print(quiet(proc.stdout + proc.stderr))
    print(f"spack spec hpceval: exit {proc.returncode}, {spec_s:.1f} s")
    if proc.returncode or not args.install:
        return proc.returncode
    proc, install_s = spack(args, "install", "-j2", "--no-checksum", "hpceval@0.1.0",
                            f"dev_path={ROOT}")
    print(quiet(proc.stdout + proc.stderr)[-3000:])
    print(f"spack install hpceval: exit {proc.returncode}, {install_s:.1f} s")
    if proc.returncode:
        return proc.returncode
    return run_installed(args)


def run_installed(args: argparse.Namespace) -> int:
    """The installed hpceval (its own C core) runs a ping-pong, as after `spack load hpceval`."""
    proc, _ = spack(args, "load", "--sh", "hpceval")
    env = dict(os.environ, HPCEVAL_DB=str(args.work / "check.sqlite"),
               XDG_DATA_HOME=str(args.work / "data"))
    for name, value in re.findall(r'^export ([A-Z_]+)="?([^";]*)"?;?$', proc.stdout, re.M):
        env[name] = value
    run = subprocess.run(["hpceval", "run", "pingpong", "--set", "sizes=8,1M"], env=env,
                         capture_output=True, text=True, cwd=args.work)
    print(run.stdout[-1500:] + run.stderr[-500:])
    print(f"installed hpceval run pingpong: exit {run.returncode} ({shutil.which('hpceval', path=env['PATH'])})")
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
