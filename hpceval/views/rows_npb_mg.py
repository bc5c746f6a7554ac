"""NAS MG's best Mop/s: a card and a headline row."""
from hpceval.views.best import best_point

best_point("npb-mg", "mops", "higher",
           lambda p: f"class {p['class']} ({p['n']}^3, {p['nit']} iterations), {p['ranks']} ranks",
           "NAS MG (NPB), Mop/s", "Mop/s", "NAS MG (NPB) Mop/s", order=45)
