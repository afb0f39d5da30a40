"""Read an issue's layout as a person does: the title and the prose say what it is about;
template headings, checklists, environment dumps and logs are scaffolding (issue 59).

:func:`split_layout` takes a raw text (title on the first line) and returns the part the
classifier reads (title, prose, and one pseudo-token per kind of scaffolding found) and the
scaffolding itself, which the tagger keeps after the prose: the rules still read it for the
regime and for version mentions (at body weight), but its words are no features of the class.
Why: on GitHub issues of other projects, feature requests were tagged friction half of the
time, from template prompts ("Is your feature request related to a problem?"), problem
statements under them and environment dumps outweighing a title that asked for a feature.

Recognised, line by line (bounded: at most ``MAX_LINES`` lines are looked at; the rest is
scaffolding):
  - template headings: Markdown headings, bold-only lines. A known one becomes a pseudo-token
    in place: ``zztmplbug`` (describe the bug, steps to reproduce, expected/actual behaviour,
    logs), ``zztmplfeature`` (feature request, motivation, pitch, proposed solution,
    alternatives), ``zztmplenv`` (environment, system info, versions: the lines under it are
    scaffolding up to the next heading), ``zztmplother``. Other headings stay prose;
  - checklists: ``- [ ]`` / ``- [x]`` items (``zzchecklist``);
  - code blocks and ``<details>`` blocks (``zzlog``; ``zzerr`` too when an error or exception
    line is in them);
  - log and traceback lines outside code blocks (``Traceback``, ``File "...", line N``,
    time-stamped lines, ``INFO``/``WARNING``/``ERROR`` prefixes, ``at pkg.Class(...)`` frames);
  - environment dumps: three or more consecutive ``key: value`` lines, pip/conda listings,
    Markdown table rows (``zzenv``).

:func:`strip_dump_noise` (regime from accelerators, not vendors; docs/tagging.md "Regime"):
  - environment-dump lines whose value says there is nothing (``N/A``, ``None``, ``No CUDA``,
    ``Could not collect``, ``False``) are dropped: "ROCM used to build PyTorch: N/A" or "HIP
    runtime version: N/A" in a CPU-only PyTorch environment dump name no platform where
    anything happens, and they say nothing about the class either;
  - trademark marks go ("Radeon(TM)", "Ryzen™") and an integrated-GPU model between "Radeon"
    and "Graphics" ("Radeon 780M Graphics", "Radeon Vega 8 Graphics") folds to "Radeon
    Graphics", the form the regime rules read as a CPU's integrated graphics (``rules.py``).
The title (first line) is never dropped.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_EMPTY_VALUE = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?[A-Za-z][^\n:]{0,60}:[ \t]*(?:n/?a|none|no|false|no cuda"
    r"|could not collect|not available|not installed|unknown)[ \t]*\.?[ \t]*(?:\n|$)",
    re.I | re.M,
)
# Every value _EMPTY_VALUE accepts starts with one of these letters after the colon.
_EMPTY_HINTS = (": n", ":n", ": f", ":f", ": c", ":c", ": u", ":u")
_TRADEMARK = re.compile(r"\((?:TM|R)\)|[™®]", re.I)
_IGPU = re.compile(r"\bRadeon\s+(?:Vega\s*\d*|\d{3,4}[MS])\s+Graphics\b", re.I)


def strip_dump_noise(text: str) -> str:
    """``text`` without its ``key: N/A``-style lines below the title, trademark marks, and with
    integrated-GPU names folded (module docstring)."""
    cut = text.find("\n") + 1
    if cut and text.find(":", cut) >= 0:
        low = text[cut:].lower()
        if any(h in low for h in _EMPTY_HINTS):
            text = text[:cut] + _EMPTY_VALUE.sub("", text[cut:])
    if ("™" in text or "®" in text or "(" in text) and _TRADEMARK.search(text):
        text = _TRADEMARK.sub("", text)
    if "adeon" in text:
        text = _IGPU.sub("Radeon Graphics", text)
    return text


MAX_LINES = 400

# Lines that could be scaffolding. A body with none of these characters has none (the common
# case, decided by one character-class scan); otherwise one anchored search decides whether
# the line pass runs.
_ANY = re.compile(r'[`~<#*>|\[:"]')
_HINT = re.compile(
    r"^[ \t]*(?:```|~~~|<details|#|[-*+]\s*\[[ xX]\]|\*\*|>|\||Traceback|File \"|\[(?:pip|conda))"
    r"|^[^\n:]{1,60}:[ \t]+\S",
    re.M,
)
_FENCE = re.compile(r"^\s*(```|~~~)")
_DETAILS_OPEN = re.compile(r"<details", re.I)
_DETAILS_CLOSE = re.compile(r"</details>", re.I)
_CHECK = re.compile(r"^\s*(?:[-*+]|\d+\.)\s*\[[ xX]\]")
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s*(.*?)\s*#*\s*$")
_BOLD_LINE = re.compile(r"^\s*\*\*([^*\n]{2,120}?)\*\*\s*:?\s*$")
_KV = re.compile(r"^\s*(?:[-*+]\s+)?[A-Za-z][\w .()/+-]{0,48}:(?:[ \t]+\S.{0,200})?$")
_TABLE = re.compile(r"^\s*\|.*\|\s*$")
_PKG = re.compile(r"^\s*(?:\[(?:pip\d?|conda)\]|[\w.-]+==\d)")
_LOG = re.compile(
    r"^\s*(?:Traceback \(most recent call last\)|File \"[^\"]*\", line \d+|at [\w.$<>]+\(.*\)$"
    r"|\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\[?(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL)\b"
    r"|E {3}|\$ |>>> )"
)
_ERR = re.compile(r"\b\w*(?:Error|Exception|Fault|panic|FAILED|fatal)\b", re.I)

_TEMPLATE_KINDS = (
    (
        "zztmplfeature",
        (
            "feature",
            "suggested",
            "problem statement",
            "is your feature request",
            "related to a problem",
            "problem you're trying to solve",
            "problem you are trying to solve",
            "describe the solution",
            "proposed solution",
            "solution you'd like",
            "describe alternatives",
            "alternatives considered",
            "alternatives you've considered",
            "alternatives",
            "motivation",
            "pitch",
            "proposal",
            "use case",
            "feature description",
            "enhancement",
            "desired behavio",
        ),
    ),
    (
        "zztmplbug",
        (
            "describe the bug",
            "bug description",
            "bug report",
            "to reproduce",
            "steps to reproduce",
            "reproduction",
            "repro",
            "expected behavio",
            "expected result",
            "actual behavio",
            "actual result",
            "current behavio",
            "observed behavio",
            "error log",
            "error message",
            "stack trace",
            "traceback",
            "logs",
            "what happened",
            "screenshots",
        ),
    ),
    (
        "zztmplenv",
        (
            "environment",
            "system info",
            "system information",
            "versions",
            "version info",
            "desktop (please complete",
            "smartphone (please complete",
            "platform",
            "configuration",
            "collect_env",
        ),
    ),
    ("zztmplother", ("additional context", "checklist", "before submitting", "summary")),
)


class Layout(NamedTuple):
    """``head``: title, prose and markers (what the classifier reads); ``tail``: scaffolding."""

    head: str
    tail: str


def _heading_kind(line: str) -> tuple[str, str] | None:
    """``(kind, heading text)`` when the line is a heading (kind "" for an unknown one)."""
    m = _MD_HEADING.match(line) or _BOLD_LINE.match(line)
    if not m:
        return None
    words = m.group(1).strip(" *:#").lower()
    for kind, keys in _TEMPLATE_KINDS:
        if any(k in words for k in keys):
            return kind, words
    return "", words


def split_layout(raw: str) -> Layout:
    """Split ``raw`` (first line: the title) into prose and scaffolding (module docstring)."""
    nl = raw.find("\n")
    if nl < 0 or not _ANY.search(raw, nl) or not _HINT.search(raw, nl + 1):
        return Layout(raw, "")
    title, body = raw[:nl], raw[nl + 1 :]
    head: list[str] = [title]
    tail: list[str] = []
    markers: list[str] = []
    lines = body.split("\n")
    if len(lines) > MAX_LINES:
        tail.extend(lines[MAX_LINES:])  # kept for the rules; cut later to the length limit
        lines = lines[:MAX_LINES]
    in_block = ""  # "fence" or "details"
    in_env = False
    kv_run: list[str] = []

    def mark(token: str) -> None:
        if token not in markers:
            markers.append(token)

    def flush_kv() -> None:
        # A run of three or more ``key: value`` lines is an environment dump; fewer are prose.
        if len(kv_run) >= 3:
            tail.extend(kv_run)
            mark("zzenv")
        else:
            head.extend(kv_run)
        kv_run.clear()

    for line in lines[:MAX_LINES]:
        if in_block:
            closing = _FENCE.match(line) if in_block == "fence" else _DETAILS_CLOSE.search(line)
            if _ERR.search(line):
                mark("zzerr")
            tail.append(line)
            if closing:
                in_block = ""
            continue
        if _FENCE.match(line):
            flush_kv()
            in_block = "fence"
            mark("zzlog")
            continue
        if _DETAILS_OPEN.search(line):
            flush_kv()
            in_block = "" if _DETAILS_CLOSE.search(line) else "details"
            mark("zzlog")
            tail.append(line)
            continue
        heading = _heading_kind(line)
        if heading is not None:
            flush_kv()
            kind, _ = heading
            in_env = kind == "zztmplenv"
            if kind:
                head.append(kind)
            else:
                head.append(line)
            continue
        if in_env:
            if line.strip():
                tail.append(line)
                mark("zzenv")
            continue
        if _CHECK.match(line):
            flush_kv()
            tail.append(line)
            mark("zzchecklist")
            continue
        if _LOG.match(line):
            flush_kv()
            tail.append(line)
            mark("zzlog")
            if _ERR.search(line):
                mark("zzerr")
            continue
        if _PKG.match(line) or _TABLE.match(line):
            flush_kv()
            tail.append(line)
            mark("zzenv")
            continue
        if _KV.match(line):
            kv_run.append(line)
            continue
        flush_kv()
        head.append(line)
    flush_kv()
    if markers:
        head.append(" ".join(markers))
    return Layout("\n".join(head), "\n".join(tail))


# Characters without which neither function above changes a text (one scan decides for most).
_EITHER = re.compile(r'[`~<#*>|\[:"(\u2122\u00ae]')


def read_layout(raw: str) -> Layout:
    """:func:`split_layout` of :func:`strip_dump_noise`, with one shared fast path: most texts
    (release-note items, CI failures, plain titles) have none of the characters either looks
    for and come back unchanged after a single scan."""
    if not _EITHER.search(raw) and "adeon" not in raw:
        return Layout(raw, "")
    return split_layout(strip_dump_noise(raw))
