"""The command line as a user meets it: every command has help and is in the README."""

from __future__ import annotations

from pathlib import Path

import click
from click.testing import CliRunner

from dmbench.cli import main

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def _commands(group: click.Group, prefix: str = "dmbench"):
    """Every command and subcommand, the lazily loaded ones loaded as ``dmbench NAME`` loads
    them (``group.commands`` holds only those already loaded)."""
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        assert command is not None, f"{prefix} {name} is listed but cannot be loaded"
        yield f"{prefix} {name}", command
        if isinstance(command, click.Group):
            yield from _commands(command, f"{prefix} {name}")


def test_every_command_has_help_and_is_documented_in_the_readme() -> None:
    walked = [path for path, _ in _commands(main)]
    assert {f"dmbench {name}" for name in main.lazy_commands} <= set(walked)
    assert "dmbench sources fetch" in walked
    for path, command in _commands(main):
        assert command.help, f"{path} has no help text"
        assert f"`{path}" in README, f"{path} is not documented in README.md"
        result = CliRunner().invoke(main, [*path.split()[1:], "--help"])
        assert result.exit_code == 0, result.output


def test_readme_gives_exactly_two_setup_commands() -> None:
    section = README.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    commands = [line for line in section.splitlines() if line.startswith("bash scripts/")]
    assert commands == ["bash scripts/reproduce.sh", "bash scripts/test.sh"]
    ci = (Path(__file__).resolve().parents[2] / ".ci/run").read_text()
    assert "bash scripts/test.sh" in ci
