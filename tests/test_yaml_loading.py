"""sources.yaml and the model-family table are parsed by libyaml's C parser when PyYAML has it
(config.safe_load_yaml): the objects, and the errors, must be yaml.safe_load's."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest
import yaml

from tracker.config import safe_load_yaml

REPO = Path(__file__).resolve().parents[1]

TRICKY = """\
versions: {torch: 2.10, jax: "0.4.30", neuron: 2.21.0}
flags: [yes, no, on, off, true, ~, null]
when: 2025-01-29
stamp: 2025-01-29 12:30:00
numbers: [0x1F, 0o17, 017, 1_000, .5, -.inf, .nan, 1e3]
base: &base {a: 1, b: [x, y]}
derived: {<<: *base, b: z}
text: |
  two lines,
  kept
folded: >
  one
  line
quoted: 'it''s "fine"'
unicode: "caf\\u00e9 \\U0001F600"
empty:
"""


def test_shipped_files_and_tricky_yaml_parse_as_safe_load_parses_them():
    texts = [
        (REPO / "sources.yaml").read_text(encoding="utf-8"),
        (resources.files("tracker.mentions") / "data" / "model_families.yaml").read_text(
            encoding="utf-8"
        ),
        TRICKY,
    ]
    for text in texts:
        # repr: the same types (float 2.1, date, None) and key order, and nan prints alike
        assert repr(safe_load_yaml(text)) == repr(yaml.safe_load(text))


def test_a_document_the_parser_rejects_fails_as_safe_load_fails():
    bad = "sources: [\n  - id: a\n"
    with pytest.raises(yaml.YAMLError) as expected:
        yaml.safe_load(bad)
    with pytest.raises(yaml.YAMLError) as got:
        safe_load_yaml(bad)
    assert str(got.value) == str(expected.value)  # with the pure parser's snippet of the line


def test_the_c_parser_is_used_when_pyyaml_has_it(monkeypatch):
    if not getattr(yaml, "__with_libyaml__", False):
        pytest.skip("PyYAML was built without libyaml")
    used = []
    real = yaml.load

    def spy(text, Loader):
        used.append(Loader)
        return real(text, Loader=Loader)

    monkeypatch.setattr(yaml, "load", spy)
    assert safe_load_yaml("a: 1") == {"a": 1}
    assert used == [yaml.CSafeLoader]
