"""Experiments: one benchmark measured under several variants (binding, copies, pages),
interleaved round by round, stored as one run with the variant in every record, and the
differences tested for significance (docs/experiments.md). Each kind is a module kind_<name>.py
that registers itself in EXPERIMENTS."""
from pathlib import Path

from hpceval.discover import import_prefixed
from hpceval.experiment.registry import EXPERIMENTS, Experiment, Setup, experiment, register_experiment

import_prefixed(__name__, [str(Path(__file__).parent)], ("kind_",))

__all__ = ["EXPERIMENTS", "Experiment", "Setup", "experiment", "register_experiment"]
