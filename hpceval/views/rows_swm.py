"""SWM's best MFlop/s: a card and a headline row."""
from hpceval.views.best import best_point

best_point("swm", "mflops", "higher",
           lambda p: (f"T{p['truncation']} L{p['levels']}, {p['P']}x{p['Q']} "
                      f"(distributed FFT and Legendre transform)"),
           "SWM (ParkBench spectral shallow water), MFlop/s", "MFlop/s",
           "SWM (ParkBench) MFlop/s", order=45)
