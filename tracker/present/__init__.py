"""What both publishers (the report and the digest) show the same way: the regime palette,
number and date formats, verdict and figure wording, and the charts they share.

It sits between measure (which computes and draws nothing) and the publishers, which may not
import each other.
"""
