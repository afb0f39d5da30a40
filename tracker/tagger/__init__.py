"""NLP tagger: class (friction | optimization | neutral), regime and framework-version mentions.

Public API::

    from tracker.tagger import load_tagger, TAGGER_VERSION
    tagger = load_tagger()
    results = tagger.tag_many([{"title": "...", "body": "...", "labels": ["bug"]}])

Rules follow ``docs/tagging.md``; see ``pipeline.py`` for how the pieces combine.
"""

__all__ = ["TAGGER_VERSION", "TagResult", "Tagger", "load_tagger"]


def __getattr__(name: str):
    # Lazy: importing spaCy takes half a second, and every `tracker` command imports this
    # package (for its CLI commands) while only tagging needs the pipeline.
    if name in __all__:
        from tracker.tagger import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module 'tracker.tagger' has no attribute {name!r}")
