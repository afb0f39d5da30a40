"""Mention extractors shared by collectors and the tagger: version mentions and status cues,
model-family names and their alias table, and a document's model-support statuses.

Regular expressions and tables only (no spaCy): a collector that reads a model list and the
tagger that reads an issue find the same names the same way.
"""
