"""The report: lag, CI pass-rate and friction series as CSV / JSON, PNG charts and one HTML page
(``writer``, ``charts``, ``model_charts``, ``templates/``). It renders what tracker.measure
computed; the digest is its sibling and never imports it (nor it the digest)."""

from tracker.present import matplotlib_home

# Before any chart module imports matplotlib: a folder tracker owns for its cache, so that a
# read-only HOME (cron's service user) prints nothing and leaves nothing in the temp folder.
matplotlib_home.settle()
