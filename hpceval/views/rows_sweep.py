"""sweep's lowest grind time: a card and a headline row."""
from hpceval.views.best import best_point

best_point("sweep", "grind_time", "lower",
           lambda p: (f"S{p['sn']}, {p['nx']}x{p['ny']}x{p['nz']} cells, {p['P'] * p['Q']} ranks "
                      f"({p['P']}x{p['Q']}), mk {p['mk']}, mmi {p['mmi']}"),
           "Wavefront transport (Sweep3D-like), grind time", "ns/cell-angle", "Sweep grind time",
           order=43)
