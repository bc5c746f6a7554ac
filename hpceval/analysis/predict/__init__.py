"""Application time from measured machine parameters (docs/models.md): a model per proxy
(barotropic, psst, sweep, montecarlo, evh1) built from the machine's message time, collectives and the
proxy's own one-rank compute rates, predicted on any rank count and held against measured runs.

    from hpceval.analysis.predict import machine_params, model, predict
    m = machine_params(runs)                       # this machine: the newest run's fingerprint
    am = model("barotropic")
    rows = predict(am, am.config({"grid": "96x64"}), [1, 2, 4], m)
"""
from hpceval.analysis.predict import barotropic, evh1, montecarlo, psst, sweep  # noqa: F401 (register)
from hpceval.analysis.predict.machine import Machine, machine_params
from hpceval.analysis.predict.model import MODELS, AppModel, Row, model, predict

__all__ = ["MODELS", "AppModel", "Machine", "Row", "machine_params", "model", "predict"]
