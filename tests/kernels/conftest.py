"""The kernel tests share kernel_helpers.py (run a binary, parse its records)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # --import-mode=importlib adds no test dirs
