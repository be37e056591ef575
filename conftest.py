"""Makes the repository root importable (posviz, ui) for the tests and doctests, and runs them with one BLAS
thread, as the app runs (streamlit_app.py): numbers the tests compute to compare with a page's are summed in the
same order, and an exact 0 the app shows is an exact 0 here."""

import os

for _blas in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_blas, "1")

# The matched family's page in AppTest and in the tests' servers evaluates one held-out window a model: the tests
# check what the page draws; tests/test_matched.py checks the statistics with counts of its own.
os.environ.setdefault("POSVIZ_MATCHED_WINDOWS", "1")

# No property test has a time limit: these machines are shared, and a Hypothesis deadline measured 298 ms against its
# 200 ms default under load on a test that takes 2 ms when quiet (a timing flake, not a finding).
try:
    from hypothesis import settings

    settings.register_profile("posviz", deadline=None)
    settings.load_profile("posviz")
except ImportError:  # the tests that need Hypothesis say so themselves
    pass
