"""NLP tagger: class (friction | optimization | neutral), regime and framework-version mentions.

Public API::

    from tracker.tagger import load_tagger, TAGGER_VERSION
    tagger = load_tagger()
    results = tagger.tag_many([{"title": "...", "body": "...", "labels": ["bug"]}])

Rules follow ``../shared/TAGGING.md``; see ``pipeline.py`` for how the pieces combine.
"""

from tracker.tagger.pipeline import TAGGER_VERSION, TagResult, Tagger, load_tagger

__all__ = ["TAGGER_VERSION", "TagResult", "Tagger", "load_tagger"]
