"""PS's execution time at 90% offered load (the study's highest): a card and a headline row."""
from hpceval.views.best import best_point

best_point("ps", "run_time", "lower",
           lambda p: (f"{p['load']:g}% load, {p['routers']} routers, {p['cycles']} cycles, "
                      f"{p['ranks']} ranks ({p['procs']})"),
           "PS network simulator at 90% load, execution time", "s",
           "PS network simulator time", order=46, keep=lambda p: p["load"] == 90)
