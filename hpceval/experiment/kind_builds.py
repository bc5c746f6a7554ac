"""builds: the same benchmark built as named variants (compiler, flags, BLAS and LAPACK, FFT;
hpceval/buildvariants.py), each into a directory of its own and run from it, interleaved. A
variant that fails to build is said in one line (the compiler's first error) and left out; the
others still run. What each build is (compiler, flags, BLAS) is kept in the run's notes."""
from __future__ import annotations

import json
from dataclasses import replace
from typing import Dict, List

from hpceval import buildvariants as bv
from hpceval.catalog import LaunchSpec
from hpceval.cbuild import BuildError
from hpceval.errors import UsageError
from hpceval.experiment.registry import Experiment, Setup, plan_benchmark, register_experiment
from hpceval.runner.signals import stoppable

_RECIPES: Dict[str, bv.Recipe] = {}        # this command's variants, ad-hoc ones included


def _parse(text: str, ctx) -> List[str]:
    names = []
    for spec in (w.strip() for w in text.split(",") if w.strip()):
        r = bv.recipe(spec)
        if r.name in names:
            raise UsageError(f"--variants: build '{r.name}' is given twice")
        _RECIPES[r.name] = r
        names.append(r.name)
    if not names:
        raise UsageError("--variants: empty list of builds")
    return names


@stoppable        # while building: a stop signal ends the build (cbuild.run_guarded) and says so
def _expand(variant: str, setup: Setup) -> List[List[LaunchSpec]]:
    specs = plan_benchmark(setup)
    try:
        bindir = bv.ensure_built(_RECIPES[variant], sorted({s.binary for s in specs}))
    except BuildError as exc:
        setup.notes.append(f"build {variant} failed, left out: {exc}")
        return []
    info = json.loads((bindir / "buildinfo.json").read_text())
    setup.notes.append(f"build {variant}: {info.get('compiler')}; {info.get('cflags')}; "
                       f"BLAS {info.get('blas')}; FFT {info.get('fft', 'fftw')}")
    return [[replace(s, label=f"{s.label} build={variant}",
                     env={**s.env, "HPCEVAL_BINDIR": str(bindir)})] for s in specs]


register_experiment(Experiment(
    "builds", "the same kernels built with other compilers, flags, BLAS/LAPACK or FFT libraries",
    "build", lambda ctx: "gcc-native,gcc-O2", _parse, _expand))
