"""hydro's best periodic cell rate per rank: a card and a headline row."""
from hpceval.views.best import best_point

best_point("hydro", "cell_rate_per_rank", "higher",
           lambda p: (f"{p['bx']}x{p['by']}x{p['bz']} cells per rank, {p['P'] * p['Q'] * p['R']} "
                      f"ranks ({p['P']}x{p['Q']}x{p['R']})"),
           "Hydrodynamics cell rate per rank (SAGE-like)", "cells/s", "Hydro cell rate per rank",
           order=41, keep=lambda p: p.get("problem") == "periodic")
