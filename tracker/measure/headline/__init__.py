"""The headline answer per regime, its quarterly series and the trends every publisher shows."""
