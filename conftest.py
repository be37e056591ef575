"""Makes the repository root importable (posviz, ui) for the tests and doctests, and runs them with one BLAS
thread, as the app runs (streamlit_app.py): numbers the tests compute to compare with a page's are summed in the
same order, and an exact 0 the app shows is an exact 0 here."""

import os

for _blas in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_blas, "1")

# The matched family's page in AppTest and in the tests' servers evaluates one held-out window a model: the tests
# check what the page draws; tests/test_matched.py checks the statistics with counts of its own.
os.environ.setdefault("POSVIZ_MATCHED_WINDOWS", "1")
