"""CI figures: pass rates by trigger, job health, parity of a mirroring pipeline, the job
figures of one as-of date, and the pass rate in two units (jobs and tests, from the CI's own
test reports)."""
