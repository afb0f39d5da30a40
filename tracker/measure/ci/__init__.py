"""CI figures: pass rates by trigger, job health, parity of a mirroring pipeline, and the job
figures of one as-of date."""
