"""The README stays true: every CLI command is documented, the test command is CI's."""

from __future__ import annotations

import re
from pathlib import Path

import click

from tracker.cli.main import cli

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()


def _commands(group: click.Group, prefix: str = "tracker") -> list[str]:
    names = []
    for name, command in group.commands.items():
        full = f"{prefix} {name}"
        if isinstance(command, click.Group):
            names.extend(_commands(command, full))
        else:
            names.append(full)
    return names


def test_every_cli_command_is_in_the_readme():
    commands = _commands(cli)
    assert "tracker collect" in commands and "tracker sources check" in commands
    missing = [c for c in commands if f"`{c}" not in README]
    assert missing == [], f"commands missing from README.md: {missing}"


def test_every_command_has_help_with_an_example():
    def walk(group, path):
        for name, command in group.commands.items():
            yield f"{path} {name}", command
            if isinstance(command, click.Group):
                yield from walk(command, f"{path} {name}")

    for name, command in walk(cli, "tracker"):
        assert command.help and "Example" in command.help, f"{name} --help has no example"


def test_readme_has_exactly_two_setup_commands_and_ci_runs_the_second():
    setup = README.split("## Set up", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", setup, flags=re.DOTALL)
    assert len(blocks) == 2
    main_job, tests = (b.strip() for b in blocks)
    assert "tracker nightly --replay cassettes/" in main_job
    ci_lines = [
        line
        for line in (REPO / ".ci" / "run").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert tests.endswith(ci_lines[-1].strip()), (tests, ci_lines[-1])


# --- the repository explains itself: links resolve inside it, nothing points outside it -------

DOCS = [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("*.md"))]
# References to material that is not in the repository: a relative path that climbs out of it,
# the machine paths of the place it was written in, and design notes that live elsewhere.
OUTSIDE = re.compile(r"\.\./|/work/|\bshared/|DESIGN\.md|TAGGING\.md")
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^(```|~~~).*?^\1", flags=re.DOTALL | re.MULTILINE)


def _prose(path: Path) -> str:
    """The Markdown without its fenced code blocks (commands there are not links)."""
    return _FENCE.sub("", path.read_text(encoding="utf-8"))


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    return {
        _anchor(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.*)$", _prose(path), re.MULTILINE)
    }


def test_the_documentation_pages_exist_and_the_readme_links_them():
    for name in ("methodology.md", "tagging.md", "operations.md"):
        assert (REPO / "docs" / name).is_file(), name
        assert f"(docs/{name}" in README, f"README.md does not link docs/{name}"
    assert "(CONTRIBUTING.md)" in README


def test_every_relative_link_resolves_inside_the_repository():
    checked = 0
    for doc in DOCS:
        for match in _LINK.finditer(_prose(doc)):
            target = match.group(1) or match.group(2)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            path, _, fragment = target.partition("#")
            resolved = (doc.parent / path).resolve() if path else doc
            where = f"{doc.relative_to(REPO)}: ({target})"
            assert resolved.is_relative_to(REPO), f"{where} leaves the repository"
            assert resolved.exists(), f"{where} does not exist"
            if fragment and resolved.suffix == ".md":
                assert fragment in _anchors(resolved), f"{where}: no heading #{fragment}"
            checked += 1
    assert checked >= 10  # the docs do link each other; a broken regex would check nothing


def test_link_checker_catches_a_broken_or_escaping_link(tmp_path):
    # The same parsing on a page with one good link and three bad ones.
    page = tmp_path / "page.md"
    page.write_text(
        "# Top part\n[ok](#top-part) [gone](missing.md) [up](../x.md) [frag](#nowhere)\n"
        "```\n[in code](not-a-link.md)\n```\n"
    )
    targets = [m.group(1) for m in _LINK.finditer(_prose(page))]
    assert targets == ["#top-part", "missing.md", "../x.md", "#nowhere"]
    assert _anchors(page) == {"top-part"}


def test_no_documentation_page_points_outside_the_repository():
    for doc in DOCS:
        for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            assert not OUTSIDE.search(line), f"{doc.relative_to(REPO)}:{n}: {line.strip()}"


def _all_commands(group: click.Group, path: list[str]):
    for name, command in group.commands.items():
        yield [*path, name]
        if isinstance(command, click.Group):
            yield from _all_commands(command, [*path, name])


def test_no_help_text_points_outside_the_repository():
    from click.testing import CliRunner

    runner = CliRunner()
    seen = 0
    for args in [[], *_all_commands(cli, [])]:
        result = runner.invoke(cli, [*args, "--help"], terminal_width=200)
        assert result.exit_code == 0, (args, result.output)
        found = OUTSIDE.search(result.output)
        assert not found, f"tracker {' '.join(args)} --help mentions {found.group(0)!r}"
        seen += 1
    assert seen > 15


def test_no_cassette_header_points_outside_the_repository():
    # The header is the comment block a cassette starts with: where its facts come from.
    for cassette in sorted((REPO / "cassettes").glob("*.yaml")):
        for n, line in enumerate(cassette.read_text(encoding="utf-8").splitlines(), 1):
            if not line.startswith("#"):
                break
            assert not OUTSIDE.search(line), f"{cassette.relative_to(REPO)}:{n}: {line}"
