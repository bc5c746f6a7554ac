"""The tracing tests share trace_helpers.py (the library, the foreign program, raw files)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # --import-mode=importlib adds no test dirs
