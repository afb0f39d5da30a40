"""Framework-version mentions with a support status (TAGGING.md "Mentions").

Anchors are tokens whose NORM is ``zzfw_<framework>`` (see :mod:`tracker.tagger.lexicon`):
``PyTorch``, ``torch``, ``torch==2.9.1``, ``vLLM``, ``jax``, ``jaxlib``, ``TensorFlow``, ``Triton``.
From each anchor the version list is read off the text that follows it, so
"JAX 0.8.2 and 0.9.0.1" gives two mentions and "PyTorch 2.6, 2.5 and 2.4" three. Versions are
normalised: a leading ``v`` and a local part (``+cu128``) are dropped, so "vLLM v0.13.0" ->
``("vllm", "0.13.0")``. A bare major ("PyTorch 2") is not a version mention.

Status comes from the clause around the mention (split at ``.``/``;``/newlines, at most 120
characters either side), checked in this
order, first hit wins:
  dropped   end of life, EOL, deprecated, removed, no longer supported, dropped support ...
  planned   planned, future release, upcoming, will support / will be supported, roadmap ...
  other     a negated support ("not supported", "does not support"), a bug or comparison context
            ("error", "fails", "regression", "slower", "than", "vs")
  supported support(s/ed), compatible, adds, upgraded to, built with, validated, tested with ...
  other     anything else (a version named with no framing).
Only ``supported`` mentions are coverage evidence.
"""

from __future__ import annotations

import re

from spacy.tokens import Doc

_VER = r"v?\d+\.\d+(?:\.\d+)*(?:(?:rc|a|b|dev|post)\d*)?(?:\+[\w.]+)?"
_LIST = re.compile(
    rf"""(?P<fw>[A-Za-z]+)\s*(?:\(\s*)?(?:versions?\s*|v(?=\d))?(?:[=<>~!@:-]+\s*)?(?P<first>{_VER})
         (?P<rest>(?:\s*(?:,\s*and|,\s*or|,|and|or|&|/)\s*(?:{_VER})(?![\w.]))*)""",
    re.X | re.I,
)
_VER_RE = re.compile(_VER, re.I)
_CLAUSE_END = re.compile(r"(?<=[.!?;])\s|\n|\|")

_DROPPED = re.compile(
    r"end[- ]of[- ]life|\beol\b|end of support|deprecat|\bremov|no longer (be )?(support|maintain|available)"
    r"|drop(ped|s|ping)? (the )?support|discontinu|last (release|version) (to|that) support|sunset|retir",
    re.I,
)
_PLANNED = re.compile(
    r"\bplann|future release|upcoming|coming soon|roadmap|will (be )?(add|support|enable|introduc|available)"
    r"|will (also )?be supported|in a (later|future|subsequent)|next release|is expected|targeted for",
    re.I,
)
_OTHER = re.compile(
    r"\bnot (yet |officially )?(be )?(support|compatible|work)|unsupported|does ?n[o']t (support|work)"
    r"|\bdon'?t support|\bincompatib|\berror|\bfail|\bcrash|\bbug\b|regress|\bslower|\bfaster than|\bthan\b"
    r"|\bvs\.?\b|\bversus\b|\bbroken|\bbreaks?\b|\bhang|segfault|\bissue with",
    re.I,
)
_SUPPORTED = re.compile(
    r"support|compatib|\badd(s|ed|ing)?\b|upgrad|\bupdat|\bbump|built (with|on|against)|based on|tested"
    r"|validat|certif|\benabl|\bavailable|works? with|introduc|now (uses|ships|requires)|\brequires?\b"
    r"|ships? with|\bpinned|\bprovides?|\bincludes?|\bminimum",
    re.I,
)


def normalise_version(raw: str) -> str:
    """``v0.13.0`` -> ``0.13.0``; ``2.9.0+cu128`` -> ``2.9.0``."""
    v = raw.strip()
    if v[:1] in "vV":
        v = v[1:]
    return v.split("+", 1)[0]


def status_of(clause: str) -> str:
    """Status of a mention from the clause it sits in (order documented in the module)."""
    for status, rx in (("dropped", _DROPPED), ("planned", _PLANNED), ("other", _OTHER), ("supported", _SUPPORTED)):
        if rx.search(clause):
            return status
    return "other"


CLAUSE_REACH = 120  # characters either side of the mention that can carry its status


def _clause(text: str, pos: int) -> str:
    """The clause around ``pos``, at most ``CLAUSE_REACH`` characters either side (bounded cost)."""
    lo = max(0, pos - CLAUSE_REACH)
    start = lo
    for m in _CLAUSE_END.finditer(text, lo, pos):
        start = m.end()
    m = _CLAUSE_END.search(text, pos, pos + CLAUSE_REACH)
    return text[start:m.start() if m else min(len(text), pos + CLAUSE_REACH)]


def extract_mentions(doc: Doc, anchors: list[int] | None = None, text: str | None = None) -> list[dict]:
    """All framework-version mentions in ``doc`` as ``{framework, version, status}`` dicts.

    ``anchors``: token indices of framework names if the caller's Matcher already found them
    (the pipeline passes them); None scans every token. Duplicates (same framework, version and
    status) are kept once, in order of appearance. ``text`` is ``doc.text`` if the caller has it.
    """
    if text is None:
        text = doc.text
    out: list[dict] = []
    seen = set()
    for i in (range(len(doc)) if anchors is None else anchors):
        tok = doc[i]
        norm = tok.norm_
        if not norm.startswith("zzfw_"):
            continue
        m = _LIST.match(text, tok.idx)
        if not m:
            continue
        framework = norm[5:]
        versions = [m.group("first")] + _VER_RE.findall(m.group("rest") or "")
        status = status_of(_clause(text, tok.idx))
        for raw in versions:
            key = (framework, normalise_version(raw), status)
            if key not in seen:
                seen.add(key)
                out.append({"framework": key[0], "version": key[1], "status": key[2]})
    return out
