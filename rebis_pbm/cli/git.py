"""``rebis-pbm git``: the referee's CI job for a game played through a git repository
(docs/git.md). A thin shell: the use cases are :mod:`rebis_pbm.transports.git.jobs`, which
enter each move through :func:`rebis_pbm.app.submit_move`.
"""

from __future__ import annotations

from pathlib import Path

import click

from rebis_pbm.cli import EXIT_CODES, REFEREE_ENV, cli, pictures_option, referee_option
from rebis_pbm.files.names import DEFAULT_GAME

GIT_EXIT = EXIT_CODES + """
\b
A job stops at the first move file not applied; the moves before it
are committed (and pushed) first. A file under moves/ that is not
named turn-NNN-PLAYER.yaml stops it before any move is applied (2).
A move file for a later turn than the record's next waits, unjudged.
In a public repository a refused file is removed in the commit of
its refusal and the job goes on; it then exits 1 or 2 once every
other move is applied and pushed. With --games, a game that stops
stops only itself: every other game's moves are applied and pushed,
then the job exits with the first stop's code."""


def _say(line: str, notice: bool = False) -> None:
    click.echo(line, err=notice)


def _game_option(f):
    f = click.option("--games", metavar="DIR", help="A shard: every DIR/NAME/game.yaml is a "
                     "game, with its move files in DIR/NAME/moves/ (and refusals in "
                     "DIR/NAME/refusals/), all handled in one run; DIR is relative to the "
                     "repository's top folder. Not with --game.")(f)
    return click.option("--game", default=DEFAULT_GAME, show_default=True, envvar="REBIS_GAME",
                        show_envvar=True, metavar="PATH", help="The record, relative to the "
                        "repository's top folder.")(f)


def _one_layout(games: str | None) -> None:
    """--game and --games exclude each other (a usage error, before anything is read)."""
    ctx = click.get_current_context()
    source = ctx.get_parameter_source("game")
    if games is not None and source in (click.core.ParameterSource.COMMANDLINE,
                                        click.core.ParameterSource.ENVIRONMENT):
        given = "--game" if source == click.core.ParameterSource.COMMANDLINE else "REBIS_GAME"
        raise click.UsageError(f"{given} and --games exclude each other: give --game PATH for "
                               f"one game per repository, or --games DIR for a shard of games "
                               f"(DIR/NAME/game.yaml), not both")


@cli.group()
def git() -> None:
    """Play through a git repository: the referee's CI job (docs/git.md).

    \b
    Pull request:  rebis-pbm git check "$BASE..$HEAD"        (no seed)
    Push to main:  rebis-pbm git apply --remote origin --branch main
    """


@git.command("check", epilog=GIT_EXIT)
@click.argument("revisions", metavar="REVISIONS")
@_game_option
def check(revisions: str, game: str, games: str | None) -> None:
    """Check a pull request's move files without the seed: name, form, game and author.

    REVISIONS is BASE..HEAD (the pull request's base and head) or one commit (what it changed).
    Each move file added or changed is checked as it stands in HEAD, with `rebis-pbm check
    --as <author of its last commit> --check-name`; not the rules, which need the seed (the
    referee job checks them once merged). Refuses to run if REBIS_PBM_SEED is set. Writes
    nothing. With --games, each game of the shard whose move files changed is checked.
    """
    from rebis_pbm.transports.git.jobs import check_moves
    _one_layout(games)
    done = check_moves(".", revisions, game, say=_say, games=games)
    click.echo(f"rebis-pbm git: {done.checked} move file(s) checked (name, form, game and "
               f"author; the rules are checked once merged); nothing committed")


@git.command("apply", epilog=GIT_EXIT)
@click.argument("revisions", metavar="[REVISIONS]", required=False)
@_game_option
@click.option("--remote", metavar="NAME", help="Fetch BRANCH from this remote, work on its "
              "current tip (not the commit that started the job), and push to it; a refused "
              "push (BRANCH moved meanwhile) starts again from the new tip. Without it: work on "
              "HEAD and only commit.")
@click.option("--branch", default="main", show_default=True, metavar="NAME",
              help="The protected branch the record lives on.")
@click.option("--name", "referee_name", default="Rebis referee", show_default=True,
              envvar="REBIS_REFEREE_NAME", show_envvar=True, help="Who commits the record.")
@click.option("--email", "referee_email", default="referee@localhost", show_default=True,
              envvar="REBIS_REFEREE_EMAIL", show_envvar=True,
              help="The committer's address.")
# An optional value: --queue alone is each game's own queue beside its record (GAME.mailq/).
@click.option("--queue", metavar="[DIR]", is_flag=False, flag_value="",
              help="Once moves are applied and pushed, queue every player's view in this Maildir "
              "for `rebis-pbm mail out` (needs --referee); nothing is queued when no move was "
              "applied. Without DIR: the game's own queue beside its record (game.mailq/); with "
              "--games, --queue alone queues each game's views in its own DIR/NAME/game.mailq/, "
              "which `rebis-pbm mail out DIR` sends.")
@referee_option()
@pictures_option
@click.option("--identity", metavar="FILE", type=click.Path(dir_okay=False),
              envvar="REBIS_PBM_AGE_IDENTITY", show_envvar=True,
              help="The referee's age identity (`rebis-pbm keygen-referee`), which opens sealed "
              "moves turn-NNN-PLAYER.yaml.age.")
@click.option("--public-repo", is_flag=True, help="A public repository: never print a "
              "refusal's reason nor put it in a commit message; commit it encrypted to the "
              "mover's --key as refusals/turn-NNN-PLAYER.txt.age (or nowhere without one).")
@click.option("--key", "keys", multiple=True, metavar="NAME=FILE",
              help="A player's SSH public key (a .pub file), for --public-repo's refusals and "
              "--encrypt-views; repeatable.")
@click.option("--encrypt-views", is_flag=True, help="Commit every private view, encrypted to "
              "its player's --key (NAME.yaml.age, NAME.txt.age); every player needs a key.")
def apply(revisions: str | None, game: str, games: str | None, remote: str | None, branch: str,
          referee_name: str, referee_email: str, queue: str | None,
          referee_address: str | None, pictures: bool, identity: str | None, public_repo: bool,
          keys: tuple[str, ...], encrypt_views: bool) -> None:
    """Apply every new move file, commit the record and the public view, and push.

    Takes every file under moves/ whose turn is the record's next or later (and the files
    REVISIONS, OLD..NEW or one commit, adds or changes), as they stand at the tip, in turn
    order; a file for a later turn waits until its turn. Each is applied with `rebis-pbm apply
    --as <author of its last commit> --check-name`. Private views never enter the repository in
    plain text: they go to a temporary folder (for --queue), and in a game created with `new
    --encrypt-views` (or with --encrypt-views) they are committed only encrypted to each
    player's key. Jobs may start in any order or overlap: whichever runs first applies every
    waiting move.

    With --games DIR, the repository is a shard: every DIR/NAME/game.yaml is a game, its move
    files in DIR/NAME/moves/, and each game's waiting moves are applied in turn in one run (one
    fetch, one push). Each game's seed is its secret file beside its record
    (DIR/NAME/game.secret.yaml, never committed): REBIS_PBM_SEED is refused. A game that stops
    (a bad file name, a refused move, its set-up) stops only itself.
    """
    from rebis_pbm.transports.git.jobs import Identity, Privacy, apply_moves
    _one_layout(games)
    if queue is not None and referee_address is None:
        raise click.UsageError(f"--queue needs --referee ADDRESS (or {REFEREE_ENV})")
    if queue and games is not None:
        raise click.UsageError(f"--queue {queue} names one game's mail queue, and a shard's "
                               f"games each have their own: give --queue alone with --games, "
                               f"which queues each game's views in {games.rstrip('/')}/NAME/"
                               f"game.mailq/ (rebis-pbm mail out {games.rstrip('/')} sends them)")

    def queue_views(outcome) -> None:
        from rebis_pbm.present.views import counted
        from rebis_pbm.transports import outbox_for
        from rebis_pbm.transports.git.jobs import repository
        top = repository(".")
        assert referee_address is not None
        if games is None:
            # (DIR as given, relative to the working folder, as ever)
            where = Path(queue) if queue else None
            count = outbox_for(top / game, referee_address, where,
                               pictures=pictures).queue_views()
            shown = outbox_for(game, referee_address, where).where
            click.echo(f"rebis-pbm git: {counted(count, 'message')} queued in {shown}/ for mail "
                       f"out.")
            return
        for record in outcome.games:  # a queue notes its game's last turn: one for each game
            count = outbox_for(top / record, referee_address, pictures=pictures).queue_views()
            click.echo(f"rebis-pbm git: {counted(count, 'message')} of {record} queued in "
                       f"{outbox_for(record, referee_address).where}/ for mail out.")

    privacy = Privacy(age_identity=identity, public_repo=public_repo,
                      keys=public_keys(keys) if keys else None, encrypt_views=encrypt_views)
    apply_moves(".", revisions, game=game, remote=remote, branch=branch,
                identity=Identity(referee_name, referee_email), say=_say,
                after_push=queue_views if queue is not None else None, privacy=privacy,
                games=games)


def public_keys(items: tuple[str, ...]) -> dict[str, str]:
    """``("ann=ann.pub", ...)`` -> ``{"ann": "ssh-ed25519 AAAA..."}``: the first ed25519 or rsa
    key of each file (a code host's NAME.keys may hold several, and keys of other kinds, passed
    over), as :func:`rebis_pbm.crypto.signatures.parse_keys` reads it (its comment dropped).

    Raises:
        UsageError: not NAME=FILE (:func:`rebis_pbm.app.name_value`), or a file without
            such a key (option ``--key``).
        InputError: a file that cannot be read (worded by
        :func:`rebis_pbm.files.atomic.read_input`).
    """
    from rebis_pbm.app import name_value
    from rebis_pbm.crypto.signatures import parse_keys
    from rebis_pbm.errors import UsageError
    from rebis_pbm.files.atomic import read_input
    keys = {}
    for item in items:
        name, file = name_value(item, "--key", "NAME=FILE", "ann=ann.pub")
        text = read_input(file, kind="key")[0].decode("utf-8", "replace")
        try:
            keys[name] = parse_keys(text, file, skip_others=True)[0]
        except ValueError as exc:
            raise UsageError(str(exc), "--key") from None
    return keys
