"""Root pytest configuration: notebooks executed by nbmake run with small sample sizes."""

import os

os.environ.setdefault("CPOKER_NOTEBOOK_QUICK", "1")  # read by every notebook; kernels inherit it
os.environ.setdefault("MPLBACKEND", "Agg")
