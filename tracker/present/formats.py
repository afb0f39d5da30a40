"""Numbers, links and collected text as people read them, the same in the report and the
digest."""

from __future__ import annotations

import re
from typing import Any

# Unicode's bidirectional formatting controls: embeddings and overrides (U+202A-U+202E),
# isolates (U+2066-U+2069) and the marks (U+200E, U+200F, U+061C). Invisible, they reorder the
# text after them on the line: a collected title holding one can make the digest's line, its
# URL or the next title read as something else ("Trojan Source").
BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# Every character a terminal or a table would act on or hide rather than show: C0 and C1
# controls (a newline forges a second line, ESC starts a terminal command), format characters
# (bidi controls, zero-width spaces), the line and paragraph separators, and the lone
# surrogates Python reads undecodable file-name bytes as (unprintable to a UTF-8 terminal).
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e"
                          "\u2060-\u206f\ud800-\udfff\ufeff\ufff9-\ufffb]")  # fmt: skip


def percent(rate: float | None) -> str:
    """A pass rate for people: "-" when nothing counted; "100%" and "0%" only when exact, one
    decimal otherwise (299 of 300 jobs is 99.7%, not a green "100%")."""
    if rate is None:
        return "-"
    if rate in (0, 1):
        return f"{rate:.0%}"
    return f"{min(max(rate, 0.001), 0.999):.1%}"


def http_only(url: str | None) -> str:
    """Collected URLs become links only when they are http(s): no javascript: or data: links."""
    return url if url and url.lower().startswith(("https://", "http://")) else ""


def visible_controls(value: Any) -> Any:
    """`value` with every bidi control written out as <U+202E> (seen, reordering nothing);
    anything but a plain str (a number, a date, markup already escaped) as it is."""
    if value.__class__ is not str or value.isascii():
        return value
    return BIDI_CONTROLS.sub(lambda found: f"<U+{ord(found.group()):04X}>", value)


def printable(text: str) -> str:
    """`text` (a collected name, a file name found on disk) with every control and invisible
    format character written out as <U+000A>: one line, shown as it is, acting on nothing."""
    return _UNPRINTABLE.sub(lambda found: f"<U+{ord(found.group()):04X}>", text)
