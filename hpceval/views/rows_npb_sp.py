"""NAS SP's best Mop/s: a card and a headline row."""
from hpceval.views.best import best_point

best_point("npb-sp", "mops", "higher",
           lambda p: f"class {p['class']} ({p['n']}^3, {p['niter']} steps), {p['ranks']} ranks",
           "NAS SP (NPB), Mop/s", "Mop/s", "NAS SP (NPB) Mop/s", order=45)
