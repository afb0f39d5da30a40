"""Read an issue's layout: which lines are scaffolding rather than what the issue is about.

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

_EMPTY_VALUE = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?[A-Za-z][^\n:]{0,60}:[ \t]*(?:n/?a|none|no|false|no cuda"
    r"|could not collect|not available|not installed|unknown)[ \t]*\.?[ \t]*(?:\n|$)",
    re.I | re.M,
)
# Every value _EMPTY_VALUE accepts starts with one of these letters after the colon.
_EMPTY_HINTS = (": n", ":n", ": f", ":f", ": c", ":c", ": u", ":u")
_TRADEMARK = re.compile(r"\((?:TM|R)\)|[™®]", re.I)
_TRADEMARK_HINTS = ("(TM)", "(tm)", "(R)", "™", "®")
_IGPU = re.compile(r"\bRadeon\s+(?:Vega\s*\d*|\d{3,4}[MS])\s+Graphics\b", re.I)


def strip_dump_noise(text: str) -> str:
    """``text`` without its ``key: N/A``-style lines below the title, trademark marks, and with
    integrated-GPU names folded (module docstring)."""
    cut = text.find("\n") + 1
    if cut and ":" in text[cut:]:
        low = text[cut:].lower()
        if any(h in low for h in _EMPTY_HINTS):
            text = text[:cut] + _EMPTY_VALUE.sub("", text[cut:])
    if any(h in text for h in _TRADEMARK_HINTS):
        text = _TRADEMARK.sub("", text)
    if "adeon" in text:
        text = _IGPU.sub("Radeon Graphics", text)
    return text
