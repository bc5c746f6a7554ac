"""NAS CG's best Mop/s: a card and a headline row."""
from hpceval.views.best import best_point

best_point("npb-cg", "mops", "higher", lambda p: f"class {p['class']}, {p['ranks']} ranks",
           "NAS CG (NPB), Mop/s", "Mop/s", "NAS CG (NPB) Mop/s", order=44)
