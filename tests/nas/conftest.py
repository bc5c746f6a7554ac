"""The SP2 application set (NPB CG and MG, PHOLD): run the binaries as the kernel tests do."""
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here))                         # --import-mode=importlib adds no test dirs
sys.path.insert(0, str(here.parent / "kernels"))      # kernel_helpers: run a binary, parse it
