"""sources.yaml and the model-family table are parsed by libyaml's C parser when PyYAML has it
(yamlload.safe_load_yaml): the objects, and the errors, must be yaml.safe_load's."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest
import yaml

from tests.yaml_bombs import bomb
from tracker.config.yamlload import ALIAS_BUDGET, safe_load_yaml
from tracker.errors import ConfigError

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

    class Spy(yaml.CSafeLoader):
        def __init__(self, stream):
            used.append(type(self).__mro__[1])
            super().__init__(stream)

    monkeypatch.setattr(yaml, "CSafeLoader", Spy)
    assert safe_load_yaml("a: 1") == {"a": 1}
    assert used == [yaml.cyaml.CSafeLoader]


@pytest.fixture(params=["C", "pure"])
def parser(request, monkeypatch):
    """Each test below runs with libyaml's parser and with the pure-Python one alone."""
    if request.param == "C" and not getattr(yaml, "__with_libyaml__", False):
        pytest.skip("PyYAML was built without libyaml")
    if request.param == "pure":
        monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    return request.param


@pytest.mark.parametrize("levels", [9, 10])
def test_an_alias_bomb_is_refused_naming_file_and_line(parser, levels):
    with pytest.raises(ConfigError) as info:
        safe_load_yaml(bomb(levels, "package"), "bomb.yaml")
    message = str(info.value)
    # line 5: the fourth level, where the aliases' values written out pass the budget
    assert message.startswith("bomb.yaml: line 5: the value anchored here is reused by YAML")
    assert "\n" not in message


def reuse(uses: int) -> str:
    """An anchored list of 99 items (100 values) and `uses` aliases of it."""
    return "base: &b [" + ", ".join(["1"] * 99) + "]\nuses: [" + ", ".join(["*b"] * uses) + "]\n"


def test_aliases_up_to_the_budget_load_as_safe_load_loads_them(parser):
    assert ALIAS_BUDGET == 10_000  # reuse(100) is exactly at it
    text = reuse(ALIAS_BUDGET // 100)
    assert safe_load_yaml(text) == yaml.safe_load(text)
    with pytest.raises(ConfigError, match=r"^<yaml text>: line 1: the value anchored here"):
        safe_load_yaml(reuse(ALIAS_BUDGET // 100 + 1))  # 100 values more


def test_an_alias_inside_its_own_anchor_is_refused(parser):
    with pytest.raises(ConfigError, match="^x.yaml: line 2: the value anchored here holds an"):
        safe_load_yaml("a: 1\nb: &b [1, [2, *b]]\n", "x.yaml")


def test_the_model_family_table_is_read_through_the_bounded_loader(tmp_path):
    from tracker.mentions.families import load_families

    path = tmp_path / "families.yaml"
    path.write_text(bomb(9, "package"))
    with pytest.raises(ConfigError, match=rf"^{path}: line 5: "):
        load_families(str(path))
