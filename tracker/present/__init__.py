"""What both publishers (the report and the digest) show the same way: the regime palette,
number and date formats, verdict and figure wording, and the charts they share.

It sits between measure (which computes and draws nothing) and the publishers, which may not
import each other.
"""

from tracker.present import matplotlib_home

# Before any chart module imports matplotlib: a folder tracker owns for its cache, so that a
# read-only HOME (cron's service user) prints nothing and leaves nothing in the temp folder.
matplotlib_home.settle()
