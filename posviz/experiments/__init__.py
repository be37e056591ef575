"""The lessons' experiments and the claims registry, run on the maths and the models."""
