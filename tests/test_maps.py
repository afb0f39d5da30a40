"""The maps stay true: a dotted name of tracker's modules in a docstring, a comment or the docs
(``tracker.measure.lag.windows``, ``measure.lag.windows``, ``lag.samples.lag_samples``) names a
module, or a name in one, that exists. A module moved without its references fails here.

A reference is resolved as written from tracker's root, from the measure package (whose
subpackages the code names without the prefix), and from each package above the file it is in
(``ci.iso`` in a collector is tracker.collect.ci.iso). A call in an example (``tagger.tag_many(``)
is code, not a reference."""

from __future__ import annotations

import importlib
import io
import re
import tokenize
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "tracker"
DOCS = [*sorted((REPO / "docs").glob("*.md")), REPO / "README.md", REPO / "CONTRIBUTING.md"]
FILE_SUFFIXES = {"py", "yaml", "md", "csv", "json", "html", "db", "txt", "eml", "png", "svg",
                 "tgz", "j2", "toml"}  # fmt: skip


def _names(folder: Path) -> set[str]:
    return {
        p.stem if p.suffix == ".py" else p.name
        for p in folder.iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()
    }


ROOTS = _names(PACKAGE) | _names(PACKAGE / "measure")
REFERENCE = re.compile(
    r"(?<![\w./`'\"-])(?:tracker\.)?("
    + "|".join(sorted(ROOTS, key=len, reverse=True))
    + r")((?:\.[A-Za-z_]\w*)+)(?!\w)(\()?"
)


def _exists(dotted: list[str]) -> bool:
    """The longest prefix that imports as a module; the rest must be names in it."""
    for cut in range(len(dotted), 0, -1):
        try:
            obj = importlib.import_module(".".join(dotted[:cut]))
        except ImportError:
            continue
        for name in dotted[cut:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return cut > 1  # "tracker" alone is not a reference
    return False


def _bases(path: Path) -> list[list[str]]:
    """Where a reference in `path` may be rooted: tracker, tracker.measure, and each package
    above the file."""
    bases = [["tracker"], ["tracker", "measure"]]
    if path.is_relative_to(PACKAGE):
        parts = ["tracker", *path.relative_to(PACKAGE).parent.parts]
        bases += [parts[:i] for i in range(len(parts), 1, -1)]
    return bases


def _texts(path: Path):
    """(line number, text) of the docstrings and comments of a module, or of a document."""
    source = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        yield from enumerate(source.splitlines(), 1)
        return
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        text = token.string
        docstring = token.type == tokenize.STRING and text.lstrip("rbuRBU").startswith(
            ('"""', "'''")
        )
        if token.type == tokenize.COMMENT or docstring:
            for offset, line in enumerate(text.splitlines()):
                yield token.start[0] + offset, line


def stale_references(paths) -> list[str]:
    out = []
    for path in paths:
        for number, line in _texts(path):
            for match in REFERENCE.finditer(line):
                dotted = [match.group(1), *match.group(2)[1:].split(".")]
                if match.group(3) or dotted[-1] in FILE_SUFFIXES:
                    continue
                if not any(_exists(base + dotted) for base in _bases(path)):
                    shown = path.relative_to(REPO) if path.is_relative_to(REPO) else path
                    out.append(f"{shown}:{number}: {match.group(0)}")
    return out


def test_dotted_references_name_modules_that_exist():
    assert stale_references([*sorted(PACKAGE.glob("**/*.py")), *DOCS]) == []


def test_a_reference_to_a_moved_module_is_caught(tmp_path):
    # the check itself: the old flat names fail, their places in the packages pass
    doc = tmp_path / "note.md"
    doc.write_text(
        "censored there (measure.windows); see tracker.measure.lag.windows.Windows.through,\n"
        "lag.samples.lag_samples and tracker.measure.model_lag; call tagger.tag_many(x).\n"
    )
    found = [line.rsplit(": ", 1)[1] for line in stale_references([doc])]
    assert found == ["measure.windows", "tracker.measure.model_lag"]


def test_measure_imports_neither_collect_nor_the_tagger():
    # docs/architecture.md: measure sits above them without importing them (the layers
    # contract alone would allow it); what both sides name lives in tracker/names.py
    imports = re.compile(r"^\s*(?:from|import) tracker\.(collect|tagger)\b", re.M)
    found = [
        str(p.relative_to(REPO))
        for p in sorted((PACKAGE / "measure").glob("**/*.py"))
        if imports.search(p.read_text(encoding="utf-8"))
    ]
    assert found == []
