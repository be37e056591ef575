"""Real trained models read from their published files (posviz/data/): numpy, their tokenizers, the maths."""
