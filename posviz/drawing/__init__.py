"""Drawing: tidy frames, Altair builders (compiled once), figures, pictures, number format."""
