"""Framework-version mentions with a support status (docs/tagging.md "Mentions").

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
from functools import lru_cache, reduce
from operator import or_
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # spaCy only for the annotation: collectors use this module without it
    from spacy.tokens import Doc

from tracker.versions import parse_version

# A version: release numbers, a pre-release / dev / post part in any PEP 440 spelling ("rc1",
# "-rc1", ".dev20251101"; kept, so a release candidate is never read as the final release), and
# a local part (dropped by normalise_version).
_VER = r"v?\d+\.\d+(?:\.\d+)*(?:[-._]?(?:rc|a|b|dev|post)\d*)?(?:\+[\w.]+)?"
# A version ends at a non-word character or a sentence's full stop ("... 2.8 and 2.9.").
_VER_END = r"(?!\w|\.\w)"
# Lists ("2.6, 2.5 and 2.4", "0.8.2 and 0.9.0.1") and ranges ("0.7.0 to 0.10.0", "2.5-2.7",
# "2.5 through 2.7"): every version written is a mention; the unwritten inside of a range is not.
_LIST = re.compile(
    rf"""(?P<fw>[A-Za-z]+)(?:\[[\w,.-]+\])?\s*(?:\(\s*)?(?:versions?\s*)?(?:to\s+)?(?:v(?=\d))?
         (?:[=<>~!@:-]+\s*)?(?P<first>{_VER}){_VER_END}
         (?P<rest>(?:\s*(?:,\s*and|,\s*or|,|and|or|&|/|to|through|thru|-|\u2013)\s*(?:{_VER}){_VER_END})*)""",
    re.X | re.I,
)
_VER_RE = re.compile(_VER, re.I)
_PSEUDO = re.compile(r"(?:zz\w+ )*")
# Sentence punctuation + whitespace, a newline or a table bar ends a clause. Written as one
# character class followed by a check (not as "[.!?;]\s|[\n|]") because the regex engine
# scans ahead fast only for a pattern that starts with a single class or literal: 2.5x faster.
_CLAUSE_END = re.compile(r"[.!?;\n|](?:(?<=[\n|])|(?=\s))")
# The last clause end in a span: greedy ``.*`` backtracks from the span's end, so ``m.end()`` is
# the largest end of any clause end in it (after the whitespace that follows punctuation), which
# is where the last match of a left-to-right scan ends (a skipped, overlapped candidate is a
# newline inside a ".\n" and ends at the same place).
_LAST_CLAUSE_END = re.compile(r"(?s:.*)[.!?;\n|](?:(?<=[\n|])|\s)")

# Status cues, as (literal, regex) pairs over lower-cased text: every match of the regex contains
# its literal, so a status whose literals are all absent is skipped without running its regex.
_STATUS_CUES = {
    "dropped": (
        ("end of", r"end of[- ](life|support)"),
        ("end-of", r"end-of[- ](life|support)"),
        ("eol", r"\beol\b"),
        ("deprecat", r"deprecat"),
        ("remov", r"\bremov"),
        ("no longer", r"no longer (be )?(support|maintain|available)"),
        ("drop", r"drop(ped|s|ping)? (the )?support"),
        ("discontinu", r"discontinu"),
        ("last ", r"last (release|version) (to|that) support"),
        ("sunset", r"sunset"),
        ("retir", r"retir"),
    ),
    "planned": (
        ("plann", r"\bplann"),
        ("future release", r"future release"),
        ("upcoming", r"upcoming"),
        ("coming soon", r"coming soon"),
        ("roadmap", r"roadmap"),
        (
            "will ",
            r"will (be )?(add|support|enable|introduc|available|provid)|will (also )?be supported",
        ),
        ("in a ", r"in a (later|future|subsequent)"),
        ("next ", r"next (\w+ )?release"),
        ("is expected", r"is expected"),
        ("targeted for", r"targeted for"),
    ),
    "other": (
        ("not ", r"\bnot (yet |officially )?(be )?(support|compatible|work)"),
        ("unsupported", r"unsupported"),
        ("does", r"does ?n[o']t (support|work)"),
        ("don", r"\bdon'?t support"),
        ("incompatib", r"\bincompatib"),
        ("error", r"\berror"),
        ("fail", r"\bfail"),
        ("crash", r"\bcrash"),
        ("bug", r"\bbug\b"),
        ("regress", r"regress"),
        ("slower", r"\bslower"),
        ("faster than", r"\bfaster than"),
        ("than", r"\bthan\b"),
        ("vs", r"\bvs\.?\b"),
        ("versus", r"\bversus\b"),
        ("broken", r"\bbroken"),
        ("break", r"\bbreaks?\b"),
        ("hang", r"\bhang"),
        ("segfault", r"segfault"),
        ("issue with", r"\bissue with"),
    ),
    "supported": (
        ("support", r"support"),
        ("compatib", r"compatib"),
        ("add", r"\badd(s|ed|ing)?\b"),
        ("upgrad", r"upgrad"),
        ("updat", r"\bupdat"),
        ("bump", r"\bbump"),
        ("built ", r"built (with|on|against)"),
        ("based on", r"based on"),
        ("tested", r"tested"),
        ("validat", r"validat"),
        ("certif", r"certif"),
        ("enabl", r"\benabl"),
        ("available", r"\bavailable"),
        ("work", r"works? with"),
        ("introduc", r"introduc"),
        ("now ", r"now (uses|ships|requires)"),
        ("require", r"\brequires?\b"),
        ("ship", r"ships? with"),
        ("pinned", r"\bpinned"),
        ("provide", r"\bprovides?"),
        ("include", r"\bincludes?"),
        ("minimum", r"\bminimum"),
    ),
}


def _fast_boundary(rx: str) -> str:
    """``\\bword`` -> ``w(?<!\\ww)ord``: the same match, but the pattern now starts with a literal.

    Python's regex engine skips quickly to positions where a pattern's possible first characters
    occur, but only when every alternative starts with a literal; a leading ``\\b`` disables that
    and made each status search several times slower.
    """
    if rx.startswith("\\b") and rx[2:3].isalpha():
        return rx[2] + "(?<!\\w" + rx[2] + ")" + rx[3:]
    return rx


_STATUS = tuple(
    (
        status,
        tuple(lit for lit, _ in cues),
        re.compile("|".join(_fast_boundary(rx) for _, rx in cues)),
    )
    for status, cues in _STATUS_CUES.items()
)

# The same cues, one by one, for the anchored check in ``status_of``: every match of a cue's regex
# starts with its literal (``tests/test_tagger.py`` checks this), so the status regex matches
# somewhere in a clause exactly when some cue matches at some occurrence of its literal.
_CUES = tuple(
    (status, lit, re.compile(_fast_boundary(rx)), bit)
    for bit, (status, lit, rx) in enumerate(
        (st, lit, rx) for st, cues in _STATUS_CUES.items() for lit, rx in cues
    )
)


def _word_cues(word: str) -> int:
    """Bit set of the cues whose literal can begin in ``word`` (lower-cased, without whitespace).

    A literal occurrence starts with a letter, so it starts inside some whitespace-delimited word;
    the literal's part up to its first space lies in that word and, if a space follows, ends the
    word. So a cue can match in a clause only if one of the clause's words has its bit here.
    """
    bits = 0
    for _status, lit, _, bit in _CUES:
        head, space, _ = lit.partition(" ")
        if word.endswith(head) if space else lit in word:
            bits |= 1 << bit
    return bits


class _WordCues(dict):
    """word as written -> :func:`_word_cues` of the lower-cased word, filled on first sight
    (bounded: cleared past ``MAX_WORDS``)."""

    MAX_WORDS = 200_000

    def __missing__(self, word: str) -> int:
        if len(self) >= self.MAX_WORDS:
            self.clear()
        bits = self[word] = _word_cues(word.lower())
        return bits


_WORD_CUES = _WordCues()
_CUE_OF_BIT = {1 << bit: (status, lit, rx) for status, lit, rx, bit in _CUES}


@lru_cache(maxsize=8192)  # a PEP 440 parse costs microseconds; texts name few distinct versions
def normalise_version(raw: str) -> str:
    """``v0.13.0`` -> ``0.13.0``; ``2.9.0+cu128`` -> ``2.9.0``; ``2.10.0-rc1`` -> ``2.10.0rc1``
    (PEP 440, as collectors store versions: a pre-release stays one)."""
    v = raw.strip()
    if v[:1] in "vV":
        v = v[1:]
    v = v.partition("+")[0]
    parsed = parse_version(v)
    return parsed.version if parsed else v


def status_of(clause: str) -> str:
    """Status of a mention from the clause it sits in (order documented in the module)."""
    return cued_status(clause) or "other"


def cued_status(clause: str) -> str | None:
    """The status a cue in ``clause`` gives, or None when no cue matches (then the mention is
    ``other``: a name with no framing). Model mentions tell the two apart: an unframed list
    item takes its introduction's status.

    Same result as searching each status's regex over the lower-cased clause in turn (that is
    :func:`status_of_reference`), but the clause's words are looked up in a per-word table of
    the cues that could start in them (built once per distinct word), and only those cues are
    tried, anchored at the occurrences of their literal. Most clauses thus run no regex at all.
    """
    # The table is keyed by the word as written (its bits are those of the lower-cased word:
    # lower-casing neither makes nor removes whitespace, so the words are the same), which saves
    # lower-casing clauses that have no cue at all (most of them).
    # Most words begin no cue: dropping their zeros first halves the cost of the OR.
    cues = reduce(or_, filter(None, map(_WORD_CUES.__getitem__, clause.split())), 0)
    if not cues:
        return None
    low = clause.lower()
    while cues:  # cues in bit order, which is the status order
        bit = cues & -cues
        cues ^= bit
        status, lit, rx = _CUE_OF_BIT[bit]
        p = low.find(lit)
        while p >= 0:
            if rx.match(low, p):
                return status
            p = low.find(lit, p + 1)
    return None


def status_of_reference(clause: str) -> str:
    """The plain definition of :func:`status_of` (kept for tests: the two must agree)."""
    low = clause.lower()
    for status, literals, rx in _STATUS:
        if any(map(low.__contains__, literals)) and rx.search(low):
            return status
    return "other"


CLAUSE_REACH = 120  # characters either side of the mention that can carry its status


def _clause_bounds(text: str, pos: int, reach: int = CLAUSE_REACH) -> tuple[int, int]:
    """Start and end of the clause around ``pos``, at most ``reach`` characters either side
    (bounded cost).

    Pseudo-tokens at the start of the text (``zzsection_deprecations`` for a "Breaking changes"
    heading) are not words of the clause: the heading is the classifier's signal, not a status.
    """
    if text.startswith("zz"):
        pseudo = _PSEUDO.match(text)  # a `*` pattern: always matches, maybe empty
        lo = pseudo.end() if pseudo else 0
        if pos < lo:
            return pos, pos
    else:
        lo = 0
    lo = max(lo, pos - reach)
    m = _LAST_CLAUSE_END.match(text, lo, pos)
    start = m.end() if m else lo
    m = _CLAUSE_END.search(text, pos, pos + reach)
    if m is None:
        return start, min(len(text), pos + reach)
    end = m.start()
    return start, end + 1 if text[end] in ".!?;" else end  # keep the sentence's punctuation


# Where one clause holds two statements: at "but" / "while" / "whereas", and at "and" when a
# verb that frames support follows ("supports 2.9 and deprecates 2.6", "adds 2.9 and will add
# 2.10"), or a qualifier of support ("adds Qwen3 and beta support for Llama 4": the beta is
# Llama 4's), not at "and" in a list ("PyTorch 2.9 and 2.8 are supported").
_BOUNDARY_WORDS = (" but ", " while ", " whereas ", " and ")
_FRAMING_VERB = re.compile(
    r"(?:will|deprecat|remov|drop|add|includ(?!ing)|improv|fix|introduc|updat|upgrad"
    r"|enabl|no longer|discontinu|end|beta|preview|experimental)\w*\b",
    re.I,
)


def _part(text: str, start: int, end: int, pos: int, commas: bool = False) -> str:
    """The part of the clause ``text[start:end]`` that holds ``pos``: a mixed sentence lends each
    mention the cues of its own statement, not of the other one. (Plain ``find`` per boundary
    word: a regex alternation scanned every space and cost a third of the mention time.)
    ``commas``: a comma before a framing verb is a boundary too ("adds Llama 3.3, removes Llama
    3.1"); model mentions ask for it, framework mentions, on the tagger's hot path, do not."""
    clause = text[start:end]
    if (
        " and " not in clause
        and " but " not in clause
        and " while " not in clause
        and " whereas " not in clause
        and not (commas and ", " in clause)
    ):
        return clause  # most clauses: one statement
    lo, hi = _part_bounds(text, start, end, pos, commas)
    return text[lo:hi]


def _part_bounds(
    text: str, start: int, end: int, pos: int, commas: bool = False
) -> tuple[int, int]:
    """Where :func:`_part` starts and ends (model mentions need the offset of the name in it)."""
    lo, hi = start, end
    for word in _BOUNDARY_WORDS + ((", ",) if commas else ()):
        i = text.find(word, start, end)
        while i >= 0:
            after = i + len(word)
            if word not in (" and ", ", ") or _FRAMING_VERB.match(text, after):
                if after <= pos:
                    lo = max(lo, after)
                elif i >= pos:
                    hi = min(hi, i)
                    break
            i = text.find(word, after - 1, end)
    return lo, hi


def extract_mentions(
    doc: Doc, anchors: list[int] | None = None, text: str | None = None
) -> list[dict]:
    """All framework-version mentions in ``doc`` as ``{framework, version, status}`` dicts.

    ``anchors``: token indices of framework names if the caller already found them; None scans
    every token. ``text`` is ``doc.text`` if the caller has it. See :func:`extract_mentions_at`.
    """
    if text is None:
        text = doc.text
    toks = (doc[i] for i in (range(len(doc)) if anchors is None else anchors))
    return extract_mentions_at(text, [(t.norm_, t.idx) for t in toks])


def extract_mentions_at(text: str, anchors: list[tuple[str, int]]) -> list[dict]:
    """Mentions read off ``text`` at ``anchors``: ``(NORM, character offset)`` of each token that
    may name a framework (NORMs other than ``zzfw_*`` are ignored).

    Duplicates (same framework, version and status) are kept once, in order of appearance.
    """
    out: list[dict] = []
    seen = set()
    for norm, idx in anchors:
        if not norm.startswith("zzfw_"):
            continue
        m = _LIST.match(text, idx)
        if not m:
            continue
        framework = norm[5:]
        first, rest = m.group("first", "rest")
        status = status_of(_part(text, *_clause_bounds(text, idx), idx))
        for raw in (first, *_VER_RE.findall(rest)) if rest else (first,):
            key = (framework, normalise_version(raw), status)
            if key not in seen:
                seen.add(key)
                out.append({"framework": key[0], "version": key[1], "status": key[2]})
    return out
