"""Each kernel's best rate on the machine card (hpceval/analysis/kernels.py)."""
from hpceval.analysis.card import CardRow, register_card_row
from hpceval.analysis.kernels import kernel_rate

for _quantity, _bench in (("Column physics", "column"), ("Shallow water model (serial)", "sst"),
                          ("Shallow water model (parallel)", "psst")):
    register_card_row(CardRow("Kernels", _quantity, "", kernel_rate(_bench), order=30))
