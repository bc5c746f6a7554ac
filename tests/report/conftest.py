"""The report tests share proxy_runs.py (hand-made runs with proxy records and traces)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # --import-mode=importlib adds no test dirs
