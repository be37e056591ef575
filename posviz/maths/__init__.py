"""Where position comes from and what attention does with it: numpy alone, no drawing, no models."""
