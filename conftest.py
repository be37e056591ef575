"""Makes the repository root importable (posviz, ui) for the tests and doctests."""
