"""The matched-models training tool's parts (JAX; posviz never imports this): model, data, train."""
