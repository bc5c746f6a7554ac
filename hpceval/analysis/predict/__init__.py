"""Application time from measured machine parameters (docs/models.md): a model per proxy
(every benchmark that declares one, `model=` in its catalog module: the module of that name
here, which registers it) built from the machine's message time, collectives and the
proxy's own one-rank compute rates, predicted on any rank count and held against measured runs.

    from hpceval.analysis.predict import machine_params, model, predict
    m = machine_params(runs)                       # this machine: the newest run's fingerprint
    am = model("barotropic")
    rows = predict(am, am.config({"grid": "96x64"}), [1, 2, 4], m)
"""
import importlib

from hpceval.analysis.predict.machine import Machine, machine_params
from hpceval.analysis.predict.model import MODELS, AppModel, Row, model, predict
from hpceval.catalog import BENCHMARKS

for _name in sorted({b.model for b in BENCHMARKS.values() if b.model}):
    importlib.import_module(f"{__name__}.{_name}")            # registers it

__all__ = ["MODELS", "AppModel", "Machine", "Row", "machine_params", "model", "predict"]
