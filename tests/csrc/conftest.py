"""The harness tests share test_binaries.py's launcher and quick options."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # --import-mode=importlib adds no test dirs
