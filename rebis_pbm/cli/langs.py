"""A refusal a command prints for a player, in the player's language (docs/cli.md, "Languages").

The referee's own output stays English; the sentence meant for the mover of a refused move is
theirs: ``apply`` and ``check GAME`` print the English sentence (for the referee) and, below it,
the same in the mover's language from the record; ``check --view`` and ``moves --view`` (a
player's own tools) answer in the language their view names. ``--lang`` overrides either.
"""

from __future__ import annotations

from typing import NoReturn

import click

from rebis_pbm.errors import Refused, one_line


def in_language(exc: Refused, lang: str | None) -> Refused:
    """``exc`` said in ``lang`` (for a player's own tool): the same exit code and reason (a
    sentence with no translation is quoted in one of ``lang``:
    :func:`rebis_pbm.present.i18n.refusal`)."""
    if not lang or lang == "en":
        return exc
    from rebis_pbm.present.i18n import refusal
    return Refused(refusal(exc, lang), exc.exit_code, exc.reason, exc.phrase)


def refuse_for_mover(exc: Refused, player: str | None, lang: str) -> NoReturn:
    """End the command with ``exc``: its English sentence (for the referee), then, when the
    mover reads another language, ``rebis-pbm: for PLAYER (LANG): <the sentence in LANG>``;
    the refusal's exit code."""
    said = in_language(exc, lang)
    if said is exc:
        raise exc
    click.echo(f"rebis-pbm: {one_line(str(exc))}", err=True)
    click.echo(f"rebis-pbm: for {player or 'the mover'} ({lang}): {one_line(str(said))}",
               err=True)
    raise click.exceptions.Exit(exc.exit_code)
