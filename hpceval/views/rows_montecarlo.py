"""montecarlo's lowest time per history: a card and a headline row."""
from hpceval.views.best import best_point

best_point("montecarlo", "history_time", "lower",
           lambda p: (f"{p['workers']} workers, {p['cycles']} cycles x {p['particles']} "
                      f"particles, {p['geometry']}"),
           "Monte Carlo transport (MCNP-like), time per history", "ns",
           "Monte Carlo time per history", order=42)
