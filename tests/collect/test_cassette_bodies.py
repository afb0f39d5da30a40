"""Hand-written cassettes hold real public records only: a release body or feed entry we wrote
(a paraphrase, a placeholder line) would be parsed into events, tagged, and counted in the
friction figures as if upstream had said it. A body is either real upstream text or empty (a
trimmed record), and a header never describes its bodies as ours."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
FOLDERS = [REPO / "cassettes", REPO / "tests" / "collect" / "cassettes"]
CASSETTES = sorted(p for folder in FOLDERS for p in folder.rglob("*.yaml"))

# what a header says when the bodies or entry contents are text written here
OURS = re.compile(
    r"\b(bod(?:y|ies)|content)\b[^.]*\b(paraphras\w*|placeholders?)\b",
    re.IGNORECASE,
)
WRITTEN = re.compile(r"placeholder|paraphras", re.IGNORECASE)
# an Atom/RSS entry's content or summary (HTML-escaped, so no "<" inside)
FEED_TEXT = re.compile(r"<(content|summary)\b[^>]*>([^<]*)</\1>")


def header(path: Path) -> str:
    lines = path.read_text(encoding="utf-8").splitlines()
    comments = []
    for line in lines:
        if not line.startswith("#"):
            break
        comments.append(line.lstrip("#").strip())
    return " ".join(comments)


def release_bodies(path: Path) -> list[tuple[str, str]]:
    """(tag or position, body) of every JSON object with a "body" in the replayed responses."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    found: list[tuple[str, str]] = []
    for interaction in data.get("interactions") or []:
        text = ((interaction.get("response") or {}).get("body") or {}).get("string") or ""
        if not isinstance(text, str):
            continue
        try:
            payload = json.loads(text)
        except ValueError:
            found += [("feed entry", m.group(2)) for m in FEED_TEXT.finditer(text)]
            continue
        items = payload if isinstance(payload, list) else [payload]
        for n, item in enumerate(items):
            if isinstance(item, dict) and isinstance(item.get("body"), str):
                found.append((str(item.get("tag_name") or n), item["body"]))
    return found


def test_the_scan_sees_the_release_cassettes():
    names = {p.name for p in CASSETTES}
    assert {"vllm-releases.yaml", "pytorch-releases.yaml", "vllm-releases-atom.yaml"} <= names
    assert len(release_bodies(REPO / "cassettes" / "vllm-releases.yaml")) > 20
    assert len(release_bodies(REPO / "cassettes" / "rocm-releases.yaml")) > 20


def test_the_header_check_catches_the_old_wording():
    said = (
        "Release ids are placeholders; bodies are short paraphrases written here",
        "Entry content and the repository number in ids are placeholders",
        "names, bodies and the page size are placeholders",
    )
    assert all(OURS.search(s) for s in said)
    assert not OURS.search("Release ids are placeholders. Bodies are empty (a trimmed record).")


@pytest.mark.parametrize("path", CASSETTES, ids=lambda p: p.name)
def test_no_header_calls_its_bodies_ours(path):
    said = OURS.search(header(path))
    assert said is None, f"{path.name}: header says {said.group(0)!r}"


@pytest.mark.parametrize("path", CASSETTES, ids=lambda p: p.name)
def test_no_body_is_a_placeholder_or_paraphrase(path):
    written = [(tag, body) for tag, body in release_bodies(path) if WRITTEN.search(body)]
    assert written == [], f"{path.name}: bodies written here: {written[:3]}"


def test_rocm_630_keeps_only_upstream_headings():
    """The one non-empty release body: four "###" headings under "## Release highlights" of
    RELEASE.md at tag rocm-6.3.0 of github.com/ROCm/ROCm (its lines 43, 74, 85, 121)."""
    bodies = {
        tag: body for tag, body in release_bodies(REPO / "cassettes" / "rocm-releases.yaml") if body
    }
    assert set(bodies) == {"rocm-6.3.0"}
    bullets = [line[2:] for line in bodies["rocm-6.3.0"].splitlines() if line.startswith("* ")]
    assert bullets == [
        "rocJPEG added",
        "SHARK AI toolkit for high-speed inferencing and serving introduced",
        "PyTorch 2.4 support added",
        "OpenCL ICD loader separated from ROCm",
    ]
