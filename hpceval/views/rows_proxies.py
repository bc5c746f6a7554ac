"""The barotropic solver's rows (hpceval/analysis/proxies.py): simulated days per day on the
card; its fastest configuration's time per iteration and days per day as headlines."""
from hpceval.analysis.card import CardRow, register_card_row
from hpceval.analysis.headlines import Headline, register_headline
from hpceval.analysis.proxies import app_rate, solver_headlines

register_card_row(CardRow("Application rates", "Ocean barotropic solver (POP-like)", "days/day",
                          app_rate("barotropic"), order=40))
register_headline(Headline(solver_headlines, order=40))
