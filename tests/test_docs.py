"""The README stays true: every CLI command is documented, the test command is CI's."""

from __future__ import annotations

import re
from pathlib import Path

import click

from tracker.cli import cli

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
