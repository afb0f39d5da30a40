"""The weekly maturity digest email: the week (``week``), its data (``data``, ``blocks``,
``queries``), charts (``charts``), thresholds and SMTP settings (``settings``), rendering and
sending (``mail``, ``templates/``). A sibling of tracker.report, never importing it."""

from tracker.present import matplotlib_home

# Before any chart module imports matplotlib: a folder tracker owns for its cache, so that a
# read-only HOME (cron's service user) prints nothing and leaves nothing in the temp folder.
matplotlib_home.settle()
