"""PHOLD's highest committed event rate: a card and a headline row."""
from hpceval.views.best import best_point

best_point("phold", "event_rate", "higher",
           lambda p: (f"{p['ranks']} ranks, {p['sync']}, lookahead {p['lookahead']:g}, remote "
                      f"{p['remote']:g}, {p['lps']} LPs"),
           "PHOLD discrete-event simulation, committed events/s", "events/s",
           "PHOLD committed events per second", order=46)
