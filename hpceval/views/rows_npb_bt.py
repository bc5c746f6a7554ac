"""NAS BT's best Mop/s: a card and a headline row."""
from hpceval.views.best import best_point

best_point("npb-bt", "mops", "higher",
           lambda p: f"class {p['class']} ({p['n']}^3, {p['niter']} steps), {p['ranks']} ranks",
           "NAS BT (NPB), Mop/s", "Mop/s", "NAS BT (NPB) Mop/s", order=45)
