"""What several commands share is defined once (issue 11): an option every command that queues
views takes, with one help and one environment variable."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from rebis_pbm import cli as cli_package
from rebis_pbm.cli import PICTURES_ENV, cli, pictures_option

PACKAGE = Path(cli_package.__file__).parent
QUEUING = [("mail", "in"), ("mail", "views"), ("tick",), ("git", "apply")]


def command(path: tuple[str, ...]) -> click.Command:
    ctx = click.Context(cli)
    found: click.Command | None = cli
    for name in path:
        assert isinstance(found, click.Group)
        found = found.get_command(ctx, name)
    assert found is not None, path
    return found


def option(cmd: click.Command, name: str) -> click.Option:
    [found] = [p for p in cmd.params if p.name == name]
    assert isinstance(found, click.Option)
    return found


@pytest.mark.parametrize("path", QUEUING, ids=" ".join)
def test_every_command_that_queues_views_takes_the_one_pictures_option(path):
    @pictures_option
    def reference(pictures: bool) -> None: ...

    the_one = option(click.command()(reference), "pictures")
    got = option(command(path), "pictures")
    assert (got.opts, got.secondary_opts, got.default, got.envvar, got.show_envvar, got.help) == \
        (the_one.opts, the_one.secondary_opts, True, PICTURES_ENV, True, the_one.help)
    assert got.help and "--no-pictures" in got.help and f"{PICTURES_ENV}=0" in got.help


def test_the_pictures_option_and_its_variable_are_spelt_in_one_module():
    spelt = sorted(p.name for p in PACKAGE.glob("*.py")
                   if "--no-pictures" in (text := p.read_text(encoding="utf-8"))
                   or "REBIS_PBM_MAIL_PICTURES" in text)
    assert spelt == ["__init__.py"]
