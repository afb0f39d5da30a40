"""Data quality shown beside the numbers: unreadable notes, source health, staleness."""
