"""The commands that write a game: ``new`` and ``apply``.

Each parses its arguments, calls one use case of :mod:`rebis_pbm.app` and prints.
"""

from __future__ import annotations

import os

import click

from rebis_pbm import app as referee
from rebis_pbm.cli import EXIT_CODES, F, announce_turn, cli, game_argument, referee_key_option
from rebis_pbm.errors import InputError, Refused, UsageError
from rebis_pbm.files.atomic import read_input
from rebis_pbm.files.names import SIGNATURE
from rebis_pbm.present import views as views_mod


def _views_dir_option(f: F) -> F:
    return click.option("--views-dir", type=click.Path(file_okay=False),
                        help="Where to write the views (default: GAME's name with .views, "
                        "beside it).")(f)


def rule_help() -> str:
    """``--rule``'s help, from the ruleset's declarations
    (:data:`rebis_pbm.engine.ruleset.PARAMETERS`): each parameter it sets, its values, what it
    is and its rulings."""
    from rebis_pbm.engine.ruleset import PARAMETERS

    return "Set a ruleset parameter (repeatable): " + "; ".join(
        f"{p.name}={p.allowed}, {p.help} ({p.rulings})" for p in PARAMETERS if p.settable) + "."


def players_and_addresses(items: tuple[str, ...]) -> tuple[tuple[str, ...], dict[str, str]]:
    """``("alice=alice@example.org", "bob")`` -> ``(("alice", "bob"), {"alice": "alice@..."})``.

    Raises:
        UsageError: NAME= or =ADDRESS (:func:`rebis_pbm.app.name_value`), or an address that
            is not one (option ``--player``).
    """
    from rebis_pbm.transports.mail.policy import check_address
    names, addresses = [], {}
    for item in items:
        name, address = referee.name_value(item, "--player", "NAME=ADDRESS",
                                           "ann=ann@example.org") if "=" in item else (item, "")
        names.append(name)
        if address:
            try:
                addresses[name] = check_address(address)
            except ValueError as exc:
                raise UsageError(f"{item!r}: {exc}", "--player") from None
    return tuple(names), addresses


@cli.command(epilog=EXIT_CODES)
@game_argument
@click.option("--player", "players", multiple=True, metavar="NAME[=ADDRESS]",
              help="A player, in seat order (2 to 4 times); the first plays first (R5). "
              "NAME=ADDRESS also registers the player's e-mail address, for play by e-mail and "
              "the sender check of `apply --as` (docs/mail.md).")
@click.option("--public-addresses", is_flag=True, help="Show the players' addresses in every "
              "view, the public one included (by default only the record holds them).")
@click.option("--seed", help="The seed to shuffle from (default: a fresh random one). Anyone who "
              "can guess it can compute every hand: one under about 128 bits is refused "
              "(docs/audit.md).")
@click.option("--insecure-seed", is_flag=True, help="Accept a guessable --seed (tests, demos, "
              "examples only).")
@click.option("--referee-deal", is_flag=True, help="Deal at once from the referee's seed alone "
              "(casual games). Default: a fair deal, after every player's join (docs/shuffle.md).")
@click.option("--key", "keys", multiple=True, metavar="NAME=FILE",
              help="Register a player's SSH public key (an OpenSSH .pub file, or several keys one "
              "a line): that player's moves are accepted only signed (docs/audit.md).")
@click.option("--lang", "langs", multiple=True, metavar="NAME=CODE",
              help="The language a player's view, mails, template and refusals are written in: "
              "en (the default), fr or pt (docs/views.md, \"Languages\").")
@click.option("--zero", is_flag=True, help="Play with the Rebis: Zero option (R2).")
@click.option("--rule", "rules", multiple=True, metavar="NAME=VALUE", help=rule_help())
@click.option("--game-id", help="The game's id (default: random).")
@click.option("--random-seats", is_flag=True, help="Draw the seat order from the seed (R5).")
@click.option("--deadline", metavar="DURATION", help="Each turn's time, e.g. 72h or 3d; "
              "`rebis-pbm tick` applies --missed to a late player (docs/deadlines.md).")
@click.option("--missed", metavar="bot|random|N",
              help="With --deadline: the greedy bot (the default) or a random move for a late "
              "player, or N missed turns after which the bot plays for them for good.")
@click.option("--absence", metavar="DURATION/N", help="With --deadline: each player's yearly "
              "absence allowance, e.g. 14d/3 (at most 14 days a calendar year, in at most 3 "
              "absences); while a player is away the game's clock stops (rebis-pbm away).")
@click.option("--grace", metavar="DURATION", help="With --deadline: time after a deadline "
              "before --missed applies, e.g. 24h; tick sends late notices meanwhile.")
@click.option("--tz", "zones", multiple=True, metavar="NAME=ZONE", help="The time zone a "
              "player reads times in, e.g. ann=Europe/Lisbon (the record stays UTC).")
@click.option("--now", metavar="TIME", help="The creation time, ISO 8601 (default: the clock).")
@click.option("--encrypt-views", is_flag=True, help="Write every player's view only encrypted "
              "with age to their SSH key (NAME.yaml.age, NAME.txt.age), never in plain text, for "
              "a game in a public repository (docs/git.md); every player needs a key (--key, or "
              "in their join).")
@click.option("--referee-recipient", metavar="AGE1...|FILE", help="The referee's age recipient, "
              "as `rebis-pbm keygen-referee` prints it (or the identity file it wrote): recorded "
              "in the public record, players seal their moves to it (rebis-pbm seal).")
@click.option("--referee-key", "referee_key", metavar="FILE", type=click.Path(dir_okay=False),
              help="The referee's SSH private key (ed25519; `rebis-pbm keygen-referee --ssh "
              "FILE` writes one): its public key is recorded in the header, and it signs every "
              "view's witness and every act of the referee's (docs/audit.md). Later commands "
              "take it with --referee-key or REBIS_PBM_REFEREE_KEY.")
@click.option("--record-format", metavar="FORMAT", help="Write the record in an older format "
              "(rebis-pbm/2 to rebis-pbm/5), for players whose tools read no newer one: before "
              "rebis-pbm/5 a fair deal takes one round of joins, not a commitment then a join; "
              "before rebis-pbm/6 the signed witness does not count the referee's acts "
              "(docs/formats.md). "
              "Default: the current format.")
@_views_dir_option
def new(game: str, players: tuple[str, ...], public_addresses: bool, seed: str | None,
        insecure_seed: bool, referee_deal: bool, keys: tuple[str, ...], langs: tuple[str, ...],
        zero: bool, rules: tuple[str, ...], game_id: str | None, random_seats: bool,
        deadline: str | None, missed: str | None, now: str | None, encrypt_views: bool,
        referee_recipient: str | None, referee_key: str | None, views_dir: str | None,
        absence: str | None = None, grace: str | None = None,
        zones: tuple[str, ...] = (), record_format: str | None = None) -> None:
    """Create a game: write GAME (the record), its secret seed beside it, and the first views."""
    from rebis_pbm.record.deadlines import parse_duration, parse_policy, parse_time
    if missed is not None and deadline is None:
        raise UsageError("--missed says what happens to a late player, so it goes with "
                         "--deadline DURATION (e.g. --deadline 72h)", "--missed")

    names, addresses = players_and_addresses(players)
    key_texts: dict[str, str] = {}
    for item in keys:
        name, path = referee.name_value(item, "--key", "NAME=FILE", "ann=ann.pub")
        data, _ = read_input(path, kind="key")
        key_texts[name] = key_texts.get(name, "") + data.decode("utf-8", "replace") + "\n"
    lang_of: dict[str, str] = {}
    for item in langs:
        name, code = referee.name_value(item, "--lang", "NAME=CODE", "ann=fr")
        if name in lang_of:
            raise UsageError(f"{item!r}: {name}'s language is given twice; give it once",
                             "--lang")
        lang_of[name] = code
    if now is not None:
        parse_time(now)
    from rebis_pbm.record.deadlines import parse_allowance  # rebis-pbm/4 (absences)
    zone_of = dict(referee.name_value(item, "--tz", "NAME=ZONE", "ann=Europe/Lisbon")
                   for item in zones)
    created = referee.create_game(
        game, names, addresses=addresses, public_addresses=public_addresses, seed=seed,
        ruleset=referee.ruleset_from(zero, rules), game_id=game_id, random_seats=random_seats,
        views_dir=views_dir, insecure_seed=insecure_seed, referee_deal=referee_deal,
        keys=key_texts, deadline=None if deadline is None else parse_duration(deadline),
        missed=parse_policy(missed or "bot"), now=now, langs=lang_of,
        encrypt_views=encrypt_views, referee_recipient=None if referee_recipient is None else
        recipient_given(referee_recipient), referee_key=referee_key,
        absence=None if absence is None else parse_allowance(absence),
        grace=None if grace is None else parse_duration(grace, "--grace"), time_zones=zone_of,
        **({} if record_format is None else {"record_format": record_format}))
    seats = created.record.players
    click.echo(f"Created game {created.record.game}: {', '.join(seats)} in seat order.")
    click.echo(f"Record: {game}. Seed: {created.secret_path} (keep it from the players until the "
               f"end). Views: {created.views_dir}/"
               + (" (each player's encrypted to their key)." if encrypt_views else "."))
    if created.record.referee_recipient:
        click.echo(f"Players seal their moves to the referee's recipient "
                   f"{created.record.referee_recipient} (rebis-pbm seal, in the public record).")
    if created.record.referee_key:
        from rebis_pbm.record.audit import fingerprint
        click.echo(f"The referee signs with key {fingerprint(created.record.referee_key)} "
                   f"(give it with --referee-key or REBIS_PBM_REFEREE_KEY from now on).")
    if created.state is None:
        if created.record.two_rounds:
            click.echo(f"Waiting for commitments: round 1 of 2, {', '.join(seats)} (each runs "
                       f"rebis-pbm play on their view, which writes their commitment; then, "
                       f"once all are in, their join).")
        else:
            click.echo(f"Waiting for joins: {', '.join(seats)} (each sends a join move: "
                       f"rebis-pbm moves {game} --player NAME writes one).")
    else:
        click.echo(f"Turn 1: {seats[0]} to move.")


def recipient_given(value: str) -> str:
    """``--referee-recipient``: an age recipient ``age1...`` as given, or read from a file: an
    identity file (``keygen-referee``'s: its recipient) or a file holding the recipient.

    Raises:
        UsageError: neither (option ``--referee-recipient``).
        InputError: the file cannot be read.
    """
    if value.strip().startswith("age1") or not os.path.isfile(value):
        return value.strip()
    data, _ = read_input(value, kind="key")
    text = data.decode("utf-8", "replace")
    if "AGE-SECRET-KEY-1" in text:
        from rebis_pbm.crypto.age import recipient_of
        return recipient_of(value)
    found = [w for w in text.split() if w.startswith("age1")]
    if not found:
        raise UsageError(f"{value} holds no age recipient (age1...); give the recipient "
                         f"`rebis-pbm keygen-referee` printed", "--referee-recipient")
    return found[0]


def checked_name(move_file: str, check_name: bool) -> str | None:
    """The file name ``--check-name`` compares with the move (None without the option).

    Raises:
        click.UsageError: ``--check-name`` with ``-`` (standard input has no name).
    """
    if not check_name:
        return None
    if move_file == "-":
        raise click.UsageError("--check-name needs a move file: standard input has no name")
    return os.path.basename(move_file)


@cli.command(epilog=EXIT_CODES)
@game_argument
@click.argument("move_file", metavar="MOVE.yaml|-")
@_views_dir_option
@click.option("--dry-run", is_flag=True, help="Check the move and tell what it would do; write "
              "nothing.")
@click.option("--as", "author", metavar="PLAYER|ADDRESS",
              help="Who sent the move (a player's name or registered address, e.g. a commit's "
              "author): refuse it unless it is that player's own move (exit 1).")
@click.option("--check-name", is_flag=True, help="Refuse the move (exit 2) unless MOVE.yaml is "
              "named turn-NNN-PLAYER.yaml after the turn and player in it, as in the moves/ "
              "folder of a game played through git.")
@click.option("--signature", metavar="FILE", help="The move's SSH signature (default: "
              "MOVE.yaml.sig, or MOVE.yaml.sig.age sealed with the move, beside the move file, "
              "if there is one; required with -).")
@click.option("--now", metavar="TIME", help="The time the move is applied, ISO 8601 (default: "
              "the clock; recorded in a game with a deadline, never read by a replay).")
@click.option("--identity", metavar="FILE", type=click.Path(dir_okay=False),
              envvar="REBIS_PBM_AGE_IDENTITY", show_envvar=True,
              help="The referee's age identity, to open a sealed move MOVE.yaml.age (written by "
              "`rebis-pbm seal`).")
@click.option("--lang", metavar="CODE", help="The language a refusal is repeated in for the "
              "mover, en, fr or pt (default: the mover's, as the game keeps it; en: English "
              "only).")
@referee_key_option
def apply(game: str, move_file: str, views_dir: str | None, dry_run: bool, author: str | None,
          check_name: bool, signature: str | None, now: str | None,
          identity: str | None, lang: str | None, referee_key: str | None) -> None:
    """Check a move file against the rules, append it to GAME and write the new views.

    MOVE.yaml may be - to read the move from standard input, or a sealed move MOVE.yaml.age
    (with --identity). A player who registered a key (new --key, or key: in their join) must
    sign each move file: ssh-keygen -Y sign -f KEY -n rebis-pbm MOVE.yaml writes MOVE.yaml.sig
    (for a sealed move: signed before sealing, the .sig beside MOVE.yaml.age).
    """
    from rebis_pbm.present.i18n import check_language
    lang = None if lang is None else check_language(lang)
    file_name = checked_name(move_file, check_name)
    referee.require_record(game)
    data, source = read_input(move_file, kind="move")
    plain_name = move_file
    if move_file.endswith(referee.ENCRYPTED):
        record = referee.read_record(game)
        referee.check_referee_identity(record, identity)
        data, _ = referee.open_sealed_move(data, source, identity, record.referee_recipient)
        plain_name = move_file[:-len(referee.ENCRYPTED)]
        if file_name is not None:
            file_name = file_name[:-len(referee.ENCRYPTED)]
    if signature is None and move_file != "-":
        for name in (plain_name + SIGNATURE, plain_name + SIGNATURE + referee.ENCRYPTED):
            if os.path.exists(name):
                signature = name
                break
    signed = None
    if signature is not None:  # a sealed signature (rebis-pbm seal --key) is opened as its move
        signed, _ = referee.open_sealed_move(read_input(signature, kind="signature")[0],
                                             signature, identity)
    try:
        done = referee.submit_move(game, data, source, author=author, views_dir=views_dir,
                                   dry_run=dry_run, file_name=file_name, signature=signed,
                                   now=now, referee_key=referee_key)
    except InputError as exc:
        raise referee.swapped_arguments(exc, game, "apply") from None
    except Refused as exc:
        from rebis_pbm.cli.langs import refuse_for_mover

        player, mover_lang = referee.mover_of(game, data, author)
        refuse_for_mover(exc, player, lang or mover_lang)
    if isinstance(done.move, referee.JoinMove):
        prefix = "Dry run, nothing written: " if dry_run else ""
        committed = done.move.commitment is not None  # rebis-pbm/5, round 1
        what = (("already committed" if committed else "already joined") + "; nothing changed"
                if done.duplicate else "sent their commitment" if committed
                else "joined the deal")
        click.echo(f"{prefix}{done.move.player} {what}.")
        if done.record.joining():
            round_ = (f"round {done.record.join_round()} of 2, " if done.record.two_rounds
                      else "")
            kind = ("commitments" if done.record.two_rounds and done.record.join_round() == 1
                    else "joins")
            click.echo(f"Waiting for {kind}: {round_}"
                       + ", ".join(done.record.waiting_for()) + ".")
        elif not done.duplicate:
            click.echo(f"Every player has joined: the cards are dealt; turn 1: "
                       f"{done.record.players[0]} to move.")
            if not dry_run:
                announce_turn(game, now)
        return
    if done.duplicate:
        click.echo(referee.already_applied(done.record, done.move, done.repaired, done.views_dir))
        return
    prefix = "Dry run, nothing written: " if dry_run else ""
    click.echo(f"{prefix}Turn {done.move.turn}: {views_mod.account(done.events)}")
    if not dry_run:
        announce_turn(game, now)
    if done.finished and not dry_run:
        click.echo(f"The game is over: {game} now reveals its seed, so anyone can check the whole "
                   f"game with: rebis-pbm verify {game}")

