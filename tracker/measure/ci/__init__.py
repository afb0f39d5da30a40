"""CI figures: pass rates, job health, parity and test-level results."""
