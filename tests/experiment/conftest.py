"""The experiment tests share helpers_experiment.py (tiny settings, what every run must show)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # --import-mode=importlib adds no test dirs
