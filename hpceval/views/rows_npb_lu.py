"""NAS LU's best Mop/s: a card and a headline row."""
from hpceval.views.best import best_point

best_point("npb-lu", "mops", "higher",
           lambda p: (f"class {p['class']} ({p['n']}^3, {p['itmax']} iterations), "
                      f"{p['ranks']} ranks"),
           "NAS LU (NPB), Mop/s", "Mop/s", "NAS LU (NPB) Mop/s", order=45)
