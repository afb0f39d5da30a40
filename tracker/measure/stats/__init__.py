"""Statistics over lag samples and rates: Kaplan-Meier summaries, the Theil-Sen bracket, its
bootstrap, and rate trends. Nothing here knows an artifact kind."""
