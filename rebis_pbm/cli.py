"""The ``rebis-pbm`` command line: a thin shell around the engine, the record and the views.

Exit codes (docs/cli.md): 0 done; 1 move rejected by the rules (illegal, out of turn, stale,
game over); 2 unreadable or schema-invalid input, or bad usage; 3 the record fails verification;
4 an internal error (a bug: please report it), or a move recorded whose views could not be
written; 75 busy: another command held the record's lock too long (EX_TEMPFAIL of sysexits.h:
try again later); 130 interrupted. On 1, 2, 3 and 75 nothing on disk changes.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from typing import NamedTuple

import click

from . import views as views_mod
from .engine import IllegalMove, Move, Ruleset, State, apply_move, score_table, seat_order, setup
from .engine import burdens, winners
from .fileio import (LockTimeout, PathLike, explain_os_error, locked, make_folder, os_error_message,
                     read_input, write_atomic)
from .record import (HEADER, CorruptRecord, Record, Replay, SealedMove, SeedError, dump_record, dump_secret,
                     find_seed, parse_record, read_game, secret_path, seed_commitment)
from .yamlio import InputError, clip, load_yaml

EXIT_OK, EXIT_REJECTED, EXIT_INPUT, EXIT_VERIFY, EXIT_BUG = 0, 1, 2, 3, 4
# EX_TEMPFAIL of sysexits.h: "try again later". Mail systems that pipe a message into
# `mail in -` keep it and deliver it again; not 1, which would blame the move's player.
EXIT_BUSY = 75
EXIT_INTERRUPTED = 130  # the shell's convention for Ctrl-C
DEBUG_ENV = "REBIS_PBM_DEBUG"  # set: an internal error shows its traceback (for the referee)
EXIT_CODES = """\b
Exit codes:
  0  done
  1  move rejected by the rules (illegal, out of turn, stale, game over)
  2  unreadable or schema-invalid input, or bad usage
  3  the game record fails verification
  4  internal error (a bug; please report it), or a move recorded
     whose views could not be written (the message says how to repair)
  75 busy: another command held the record's lock for 30 s
     ($REBIS_PBM_LOCK_TIMEOUT); try again later
  130 interrupted (Ctrl-C): run the same command again
On 1, 2, 3 and 75 nothing on disk changes."""


class Failure(click.ClickException):
    """An error for the user: one sentence, an exit code, no traceback.

    Characters that are not printable (line breaks, control characters quoted from a file)
    are shown as escapes such as ``\\n``, so the message stays one line of plain text.
    """

    def __init__(self, message: str, exit_code: int):
        super().__init__(_printable(message))
        self.exit_code = exit_code

    def show(self, file=None) -> None:
        click.echo(f"rebis-pbm: {self.format_message()}", err=True)


def _printable(text: str) -> str:
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class Refused(Failure):
    """A move refused for a reason its sender can fix: exit 1 (against the rules, stale, game
    over, or not the sender's own move) or 2 (unreadable, schema-invalid, another game).

    The message names the move's source and says nothing the move's player may not know, so the
    mail transport sends it back to them as it is.
    """


def _failure(exc: BaseException) -> Failure | None:
    """The project's exceptions as a sentence and an exit code (None: a bug). A lock held too
    long is EXIT_BUSY (the referee's side, try again later), never EXIT_REJECTED (the move's
    fault); every OSError is worded by :func:`rebis_pbm.fileio.explain_os_error`."""
    if isinstance(exc, IllegalMove):
        return Failure(f"move rejected: {exc.message}", EXIT_REJECTED)
    if isinstance(exc, LockTimeout):
        return Failure(str(exc), EXIT_BUSY)
    if isinstance(exc, CorruptRecord):
        return Failure(str(exc), EXIT_VERIFY)
    if isinstance(exc, (InputError, SeedError)):
        return Failure(str(exc), EXIT_INPUT)
    if isinstance(exc, OSError):
        return Failure(os_error_message(exc), EXIT_INPUT)
    return None


# click >= 8.2 reports a bare command group as this usage error; older versions print the help.
_NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())


class Group(click.Group):
    """Turns the project's errors into one sentence and an exit code (never a traceback).

    Commands defined in other modules (:data:`LAZY_COMMANDS`) are imported only when one of them
    is run or listed (click's "lazily loading subcommands" pattern), so that ``view`` does not
    pay for the mail, audit and bot modules.
    """

    def list_commands(self, ctx) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx, cmd_name):
        if cmd_name not in self.commands and cmd_name in LAZY_COMMANDS:
            import importlib

            importlib.import_module(LAZY_COMMANDS[cmd_name], __package__)  # registers it
        return super().get_command(ctx, cmd_name)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        # click prints a usage error as three lines (usage, hint, error); ours are one sentence.
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as exc:
            if not standalone_mode:
                raise
            if isinstance(exc, _NO_ARGS_IS_HELP):  # bare `rebis-pbm`: the help is the message
                click.echo(exc.format_message(), err=True)
                sys.exit(EXIT_INPUT)
            hint = f"; see '{exc.ctx.command_path} --help'" if exc.ctx is not None else ""
            click.echo(f"rebis-pbm: {exc.format_message().rstrip('.')}{hint}", err=True)
            sys.exit(EXIT_INPUT)
        except click.ClickException as exc:
            if not standalone_mode:
                raise
            exc.show()
            sys.exit(exc.exit_code)
        if standalone_mode:
            sys.exit(code if isinstance(code, int) else EXIT_OK)
        return code

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except KeyboardInterrupt:
            # click would report "Aborted!" with exit 1, which reads as "move rejected".
            raise Failure("interrupted; every file is either fully written or untouched, so run "
                          "the same command again to finish (apply then says if the move was "
                          "already applied)", EXIT_INTERRUPTED) from None
        except Exception as exc:  # the last line of defence: no traceback reaches a user
            failure = _failure(exc)
            if failure is None:
                if os.environ.get(DEBUG_ENV):
                    raise  # the referee asked for the traceback
                # The exception's text could quote game state (a hand, the deck): not shown.
                failure = Failure(f"internal error ({type(exc).__name__}); this is a bug in "
                                  f"rebis-pbm, please report it with the command you ran (set "
                                  f"{DEBUG_ENV}=1 to see the details)", EXIT_BUG)
            raise failure from None


@click.group(cls=Group, epilog=EXIT_CODES, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rebis-pbm")
def cli() -> None:
    """Referee for the card game Rebis played by e-mail or through a git repository.

    A referee creates a game with `new`, then runs `apply` on each move file a player sends; every
    player reads their own view. See docs/ for the rules, the file formats and the shuffle.
    """


# --- shared steps ---------------------------------------------------------------------------

def default_views_dir(record_path: PathLike) -> str:
    """``game.yaml`` -> ``game.views/`` beside it."""
    folder, name = os.path.split(os.fspath(record_path))
    stem = name[:-5] if name.endswith(".yaml") else name
    return os.path.join(folder, stem + ".views")


def load_game(record_path: PathLike) -> tuple[Record, Replay]:
    """Read, validate, verify and replay a record with its seed (see :func:`load_game_with_seed`)."""
    record, replay, _ = load_game_with_seed(record_path)
    return record, replay


def read_record(record_path: PathLike) -> Record:
    """Read and validate a record without its seed and without replaying it: what anyone can
    know of a game (its id, players, addresses, the moves as recorded).

    Raises:
        InputError: the record cannot be read or is not a valid record (exit 2).
        CorruptRecord: a record rebis-pbm wrote that is now damaged (see :func:`damaged_record`).
    """
    data, source = read_input(os.fspath(record_path), kind="record")
    try:
        return parse_record(data, source)
    except InputError as exc:
        raise damaged_record(exc, data, source) from None


def load_game_with_seed(record_path: PathLike) -> tuple[Record, Replay, str]:
    """Read and validate a record, find its seed (revealed, REBIS_PBM_SEED or the secret file)
    and replay it, checking every digest on the way (docs/audit.md).

    Raises:
        InputError, SeedError: the record or its seed cannot be read (exit 2).
        CorruptRecord: the record fails verification (exit 3); the message names the turn.
    """
    data, source = read_input(os.fspath(record_path), kind="record")
    try:
        return read_game(data, source, lambda record: find_seed(record_path, record))
    except InputError as exc:
        raise damaged_record(exc, data, source) from None
    except CorruptRecord as exc:
        raise CorruptRecord(f"{source} fails verification at {exc}; nothing was written "
                            f"(rebis-pbm verify {source} tells more)", exc.problem) from None


def damaged_record(exc: InputError, data: bytes, source: str) -> Exception:
    """What to raise when a record's bytes ``data`` do not read as a record (``exc``).

    A file that starts with the header rebis-pbm writes on every record (:data:`HEADER`), or
    with part of it, and no longer reads as YAML, or lacks its ``status`` or has it broken
    (the writer writes it last), was damaged since: cut short, or merged badly. It fails
    verification (exit 3), worded as ``verify`` words it (docs/audit.md), since the schema's
    advice ("add it") would invite editing the record by hand. Anything else keeps ``exc``
    (exit 2): a file that is no record at all (a move or secret file given as the record), or
    a field edited by hand, such as the players' addresses, which the referee may correct
    (docs/mail.md).
    """
    header = HEADER.encode()
    if not (data.startswith(header) or (data and header.startswith(data))):
        return exc
    from .audit import verify  # here: only a damaged record needs the verify machinery

    problem = verify(data, source).problem
    cut_short = problem is not None and problem.code == "schema" and (
        b"\nstatus:" not in data or exc.path[:1] == ("status",))
    if problem is None or not (problem.code == "unreadable" or cut_short):
        return exc
    return CorruptRecord(f"{source} fails verification at {problem.sentence()}; nothing was "
                         f"written (rebis-pbm verify {source} tells more)", problem)


def load_for_mover(game: PathLike, player: str) -> tuple[Record, State]:
    """:func:`load_game` for a command that acts for ``player``, who must be the one to move.

    Raises:
        click.BadParameter: ``player`` is not in the game (exit 2).
        Failure: it is not ``player``'s move, or the game is over (exit 1).
    """
    record, replay = load_game(game)
    state = replay.state
    if player not in record.players:
        raise click.BadParameter(f"no player {player!r} in game {record.game} (players: "
                                 f"{', '.join(record.players)})", param_hint="--player")
    if record.abandoned(state):
        raise Failure(f"{player} has no move to make: game {record.game} was abandoned (its "
                      f"seed was revealed with rebis-pbm reveal)", EXIT_REJECTED)
    if state.player_to_move != player:
        whose = "the game is over" if state.finished else \
            f"turn {state.turn} is {state.player_to_move}'s"
        raise Failure(f"{player} has no move to make: {whose}", EXIT_REJECTED)
    return record, state


def record_view(record: Record, replay: Replay, viewer: str | None) -> dict:
    """``views.build_view`` for a game: every card once the record reveals its seed, the
    addresses when the game made them public."""
    return views_mod.build_view(record.game, replay, viewer, revealed=record.seed is not None,
                                abandoned=record.abandoned(replay.state),
                                addresses=record.shown_addresses())


def write_views(views_dir: PathLike, record: Record, replay: Replay, *,
                stale_only: bool = False) -> int:
    """One view per player (YAML and text, mode 0600) and the public view (mode 0644).

    A view file that already holds exactly the right bytes and mode is left alone, so writing the
    views of an unchanged game changes nothing on disk. With ``stale_only``, only view files that
    exist but are out of date are rewritten (what an ``apply`` interrupted after writing the
    record leaves); no file or folder is created. Returns how many files were written.
    Raises OSError (a :class:`~rebis_pbm.fileio.FileError`, worded for people) when the folder
    or a file cannot be written.
    """
    if not os.path.isdir(views_dir):
        if stale_only:
            return 0
        make_folder(views_dir, what="the views folder")  # its parent must exist
    written = 0
    for viewer in (*record.players, None):
        view = record_view(record, replay, viewer)
        name = viewer or views_mod.PUBLIC
        mode = 0o644 if viewer is None else 0o600
        for fmt, suffix in (("yaml", ".yaml"), ("text", ".txt")):
            path = os.path.join(views_dir, f"{name}{suffix}")
            if stale_only and not os.path.exists(path):
                continue
            data = views_mod.render(view, fmt).encode("utf-8")
            if not _holds(path, data, mode):
                # Views are derived from the record and rewritten on every apply: atomic, but
                # not fsynced (the record is).
                write_atomic(path, data, mode=mode, durable=False)
                written += 1
    return written


def _holds(path: str, data: bytes, mode: int) -> bool:
    """Does ``path`` already hold exactly ``data`` with permission bits ``mode``?"""
    try:
        if (os.stat(path).st_mode & 0o7777) != mode:
            return False
        with open(path, "rb") as f:
            return f.read() == data
    except OSError:
        return False


def make_views_dir(views_dir: PathLike) -> bool:
    """Create the views folder unless it exists (its parent must: a typo must not create a
    tree); True when it was created here.

    Raises:
        Failure: it cannot be created (exit 2), said before anything is written.
    """
    try:
        return make_folder(views_dir, what="the views folder")
    except OSError as exc:
        said = explain_os_error(exc)
        raise Failure(f"{said.where}: {said.problem}, so nothing was written; {said.fix}",
                      EXIT_INPUT) from None


def require_record(game: PathLike) -> None:
    """Refuse a GAME that is not an existing file before anything else happens (before its
    lock is taken).

    Raises InputError (exit 2) for a missing path or a folder.
    """
    if os.path.isdir(game):
        raise InputError("this is a folder, not a game record; give the path of the record "
                         "(e.g. game.yaml) inside it", source=os.fspath(game))
    if not os.path.exists(game):
        raise InputError("there is no such game record; check the name and the folder "
                         "(`rebis-pbm new` creates a game)", source=os.fspath(game))


def _ruleset(zero: bool, rules: tuple[str, ...]) -> Ruleset:
    fields = Ruleset().as_dict()
    values: dict = {"zero": zero}
    for item in rules:
        name, sep, text = item.partition("=")
        if not sep or name not in fields or name in ("deck", "zero"):
            settable = ", ".join(k for k in fields if k not in ("deck", "zero"))
            raise click.BadParameter(f"{item!r}: write NAME=VALUE with NAME one of {settable}",
                                     param_hint="--rule")
        if name == "multiplier":
            values[name] = text
        else:
            try:
                values[name] = int(text)
            except ValueError:
                raise click.BadParameter(f"{name} must be a whole number, not {clip(text)!r}",
                                         param_hint="--rule") from None
    try:
        return Ruleset(**values)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--rule") from None


# --- commands -------------------------------------------------------------------------------

@cli.command(epilog=EXIT_CODES)
@click.argument("game", type=click.Path(dir_okay=False, readable=False))
@click.option("--player", "players", multiple=True, metavar="NAME[=ADDRESS]",
              help="A player, in seat order (2 to 4 times); the first plays first (R5). "
              "NAME=ADDRESS also registers the player's e-mail address, for play by e-mail and "
              "the sender check of `apply --as` (docs/mail.md).")
@click.option("--public-addresses", is_flag=True, help="Show the players' addresses in every "
              "view, the public one included (by default only the record holds them).")
@click.option("--seed", help="The seed to shuffle from (default: a fresh random one). Anyone who "
              "can guess it can compute every hand: use it only for tests and examples.")
@click.option("--zero", is_flag=True, help="Play with the Rebis: Zero option (R2).")
@click.option("--rule", "rules", multiple=True, metavar="NAME=VALUE",
              help="Set a ruleset parameter (R3, R4): golden_dust, gold, red, shelf_limit, "
              "hand_size, multiplier.")
@click.option("--game-id", help="The game's id (default: derived from the seed's commitment).")
@click.option("--random-seats", is_flag=True, help="Draw the seat order from the seed (R5).")
@click.option("--views-dir", type=click.Path(file_okay=False),
              help="Where to write the views (default: GAME's name with .views, beside it).")
def new(game: str, players, public_addresses, seed, zero, rules, game_id, random_seats,
        views_dir) -> None:
    """Create a game: write GAME (the record), its secret seed beside it, and the first views."""
    players, addresses = _players_and_addresses(players)
    if not 2 <= len(players) <= 4:
        raise click.BadParameter(f"Rebis is played by 2 to 4 players; give --player 2 to 4 "
                                 f"times (got {len(players)})", param_hint="--player")
    from .schemas import defined_pattern

    pattern = defined_pattern("move", "player")
    for name in players:
        if not pattern.fullmatch(name):
            raise click.BadParameter(f"{clip(name)!r} is not a valid name: a letter, then letters, "
                                     f"digits, '_' or '-', at most 32 characters",
                                     param_hint="--player")
        if name.casefold() == views_mod.PUBLIC:
            raise click.BadParameter("'public' is the spectator view's name; choose another",
                                     param_hint="--player")
    if len({name.casefold() for name in players}) != len(players):
        # Names become view file names: alice.txt and Alice.txt are one file on many disks.
        raise click.BadParameter("each player needs a different name, and names that differ only "
                                 "in upper/lower case count as the same", param_hint="--player")
    ruleset = _ruleset(zero, rules)
    secret = secret_path(game)
    folder = os.path.dirname(game) or "."
    if not os.path.isdir(folder):
        raise Failure(f"{folder}: there is no such folder; create it first (nothing was "
                      f"written)", EXIT_INPUT)
    if seed is None:
        import secrets

        seed = secrets.token_hex(16)
    elif seed == "":
        raise click.BadParameter("the seed cannot be empty", param_hint="--seed")
    commitment = seed_commitment(seed)
    if game_id is None:
        game_id = f"rebis-{commitment[:10]}"
    elif not defined_pattern("move", "game").fullmatch(game_id):
        raise click.BadParameter("use letters, digits, '.', '_' or '-' (at most 64)",
                                 param_hint="--game-id")
    seats = seat_order(players, seed) if random_seats else tuple(players)
    try:
        state, setup_events = setup(ruleset, seats, seed)
    except ValueError as exc:
        raise Failure(str(exc), EXIT_INPUT) from None
    record = Record(game_id, ruleset, seats, commitment, addresses=addresses,
                    public_addresses=public_addresses)
    views_dir = views_dir or default_views_dir(game)
    # Under the record's lock, so that two `new` for the same file name cannot both write; a
    # failed `new` removes what it wrote.
    with locked(game):
        for path in (game, secret):
            if os.path.exists(path):
                raise Failure(f"{path} already exists; choose another file name (nothing was "
                              f"written)", EXIT_INPUT)
        made = make_views_dir(views_dir)  # before the record: a bad --views-dir writes nothing
        try:
            write_atomic(secret, dump_secret(game_id, seed), mode=0o600)
            write_atomic(game, dump_record(record, state))
            write_views(views_dir, record, Replay(state, setup_events))
        except BaseException:
            for path in (game, secret):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
            if made:
                import shutil

                shutil.rmtree(views_dir, ignore_errors=True)  # made by this command just now
            raise
    click.echo(f"Created game {game_id}: {', '.join(seats)} in seat order.")
    click.echo(f"Record: {game}. Seed: {secret} (keep it from the players until the end). "
               f"Views: {views_dir}/.")
    click.echo(f"Turn 1: {seats[0]} to move.")


def _players_and_addresses(items) -> tuple[tuple[str, ...], dict[str, str]]:
    """``("alice=alice@example.org", "bob")`` -> ``(("alice", "bob"), {"alice": "alice@..."})``."""
    from .mail import check_address

    names, addresses = [], {}
    for item in items:
        name, sep, address = item.partition("=")
        names.append(name)
        if sep:
            try:
                addresses[name] = check_address(address)
            except ValueError as exc:
                raise click.BadParameter(f"{item!r}: {exc}", param_hint="--player") from None
    taken: dict[str, str] = {}
    for name, address in addresses.items():
        if address.casefold() in taken:
            raise click.BadParameter(f"{taken[address.casefold()]} and {name} have the same "
                                     f"address {address}; each player needs their own, so that "
                                     f"a move's sender tells who sent it", param_hint="--player")
        taken[address.casefold()] = name
    return tuple(names), addresses


class Submitted(NamedTuple):
    """What :func:`submit_move` did.

    Attributes:
        record, replay: the game after the move (as before it when ``duplicate``).
        move: the move submitted.
        events: the move's events (``()`` when ``duplicate``).
        duplicate: the move was already in the record (see :meth:`Record.holds`).
        repaired: when ``duplicate``, how many stale view files were rewritten (an earlier
            ``apply`` interrupted after writing the record); normally 0: nothing changed.
    """

    record: Record
    replay: Replay
    move: Move
    events: tuple
    duplicate: bool
    repaired: int = 0


def already_applied(record: Record, move: Move, repaired: int = 0,
                    views_dir: PathLike | None = None) -> str:
    """What to say when ``move`` is already in ``record`` (see :meth:`Record.holds`);
    ``repaired`` view files were rewritten in ``views_dir`` (see :class:`Submitted`)."""
    entry = record.moves[move.turn - 1]
    # A sealed card is not compared (Record.holds), so say only what was compared.
    what = (f": a closing play on {entry.shelf}'s shelf, like this one (its card is sealed in "
            f"the record, so the card sent is not compared)"
            if isinstance(entry, SealedMove) else " with exactly this move")
    extra = (f" (rewrote {repaired} stale view file(s) in {views_dir}/)" if repaired
             else "; nothing changed")
    return f"Turn {move.turn} by {move.player} was already applied{what}{extra}."


def author_player(record: Record, author: str) -> str | None:
    """The player ``author`` stands for: a player's name, or an address registered with ``new``
    (None when no player registered that address).

    Raises:
        click.BadParameter: a name that is not a player's.
    """
    if "@" in author:  # player names cannot contain '@' (move schema), so this is an address
        return record.player_at(author)
    if author not in record.players:
        raise click.BadParameter(f"no player {clip(author)!r} in game {record.game} (players: "
                                 f"{', '.join(record.players)})", param_hint="--as")
    return author


def move_file_name(turn: int, player: str) -> str:
    """The name of the file that holds ``player``'s move for ``turn`` in a game played through
    git (docs/git.md): ``turn-007-alice.yaml``, the turn with at least three digits."""
    return f"turn-{turn:03d}-{player}.yaml"


def read_move(record: Record, game: PathLike, data: bytes, source: str, *,
              author: str | None = None, file_name: str | None = None) -> Move:
    """The move in a move file, checked for everything that needs no seed: the strict loader
    and the move schema, the game id, the file's name (``file_name``, when given, must be
    :func:`move_file_name` of the move's turn and player) and the sender (``author``, when
    given: a player's name or registered address, see :func:`author_player`). Not the rules.

    Raises:
        Refused: unreadable, schema-invalid, for another game or misnamed (exit 2); not from
            its player, or from an address no player registered (exit 1).
        click.BadParameter: ``author`` is a name that is not a player's.
    """
    from .schemas import validate

    try:
        loaded = load_yaml(data, source=source, kind="move")
        validate(loaded, "move")
    except InputError as exc:
        raise Refused(str(exc), EXIT_INPUT) from None
    doc = loaded.data
    if doc["game"] != record.game:
        raise Refused(f"{source}: this move is for game {doc['game']}, but {game} is game "
                      f"{record.game}", EXIT_INPUT)
    if file_name is not None:
        expected = move_file_name(doc["turn"], doc["player"])
        if file_name != expected:
            raise Refused(f"{source}: this file holds the move of turn {doc['turn']} by "
                          f"{doc['player']}, so it must be named {expected}; rename the file, "
                          f"or correct the turn and player in it", EXIT_INPUT)
    if author is not None:
        sender = author_player(record, author)
        if sender is None:
            raise Refused(f"{source}: {clip(author)} is not the address of any player of game "
                          f"{record.game}; a player's address is registered when the game is "
                          f"created", EXIT_REJECTED)
        # A name that is no player's is left to the rules, which say so and list the players.
        if sender != doc["player"] and doc["player"] in record.players:
            raise Refused(f"{source}: this move is for {doc['player']}, but it comes from "
                          f"{author if sender == author else f'{clip(author)} ({sender})'}; a player "
                          f"can only send their own moves", EXIT_REJECTED)
    return Move.from_dict(doc)


def submit_move(game: PathLike, data: bytes, source: str, *, author: str | None = None,
                views_dir: PathLike | None = None, dry_run: bool = False,
                file_name: str | None = None) -> Submitted:
    """The one way a move enters a game (``apply``, ``mail in``): check it, append it, write views.

    Call it holding ``locked(game)``. ``data`` is the move file's bytes and ``source`` its name in
    messages. In order: what :func:`read_move` checks (the strict loader and the move schema,
    the game id, the file's name when ``file_name`` is given, the sender when ``author`` is
    given), a resubmission of an already recorded move (``duplicate``: only existing view
    files that are out of date are rewritten, normally none), an abandoned game, the rules (R6-R12). Unless
    ``dry_run``, the record (the move with its chain link; the seed revealed when the move ends
    the game, docs/audit.md), then the views (in ``views_dir``, default beside GAME) are written.

    Raises:
        Refused: the move is unreadable, schema-invalid, for another game, misnamed (exit 2),
            not from its player, or against the rules, stale, late or for an abandoned game (exit 1).
            Nothing is written.
        Failure: the views folder cannot be created (exit 2, nothing written), or the record was
            written but a view could not be (exit 4; the same call again repairs the views).
        InputError, SeedError, CorruptRecord, OSError: the record or its seed is at fault
            (a record failing verification included), or the record cannot be written.
    """
    record, replay, seed = load_game_with_seed(game)
    move = read_move(record, game, data, source, author=author, file_name=file_name)
    views_dir = views_dir or default_views_dir(game)
    if record.holds(move):
        # A mail delivered twice. Existing view files are rewritten only where they are stale
        # (an earlier apply interrupted after the record was written): normally none.
        repaired = 0 if dry_run else _views_after_record(game, views_dir, record, replay,
                                                         stale_only=True)
        return Submitted(record, replay, move, (), duplicate=True, repaired=repaired)
    if record.abandoned(replay.state):
        raise Refused(f"{source}: move rejected: game {record.game} was abandoned (its seed "
                      f"was revealed with rebis-pbm reveal); no more moves can be played",
                      EXIT_REJECTED)
    try:
        state, events = apply_move(replay.state, move)
    except IllegalMove as exc:
        raise Refused(f"{source}: move rejected: {exc.message}", EXIT_REJECTED) from None
    # The seed also seals the card of a closing play in the public record (R8.1).
    new_record = record.with_move(move, state, seed, events)
    if state.finished:  # the game is over: the record reveals the seed (docs/audit.md)
        new_record = new_record.revealed(seed)
    new_replay = Replay(state, replay.setup_events, replay.history + ((move, events),))
    if not dry_run:
        make_views_dir(views_dir)  # fail before the record changes
        write_atomic(game, dump_record(new_record, state))
        _views_after_record(game, views_dir, new_record, new_replay)
    return Submitted(new_record, new_replay, move, events, duplicate=False)


@cli.command(epilog=EXIT_CODES)
@click.argument("game", type=click.Path(dir_okay=False, readable=False))
@click.argument("move_file", metavar="MOVE.yaml|-")
@click.option("--views-dir", type=click.Path(file_okay=False),
              help="Where to write the views (default: GAME's name with .views, beside it).")
@click.option("--dry-run", is_flag=True, help="Check the move and tell what it would do; write "
              "nothing.")
@click.option("--as", "author", metavar="PLAYER|ADDRESS",
              help="Who sent the move (a player's name or registered address, e.g. a commit's "
              "author): refuse it unless it is that player's own move (exit 1).")
@click.option("--check-name", is_flag=True, help="Refuse the move (exit 2) unless MOVE.yaml is "
              "named turn-NNN-PLAYER.yaml after the turn and player in it, as in the moves/ "
              "folder of a game played through git.")
def apply(game: str, move_file: str, views_dir, dry_run: bool, author, check_name: bool) -> None:
    """Check a move file against the rules, append it to GAME and write the new views.

    MOVE.yaml may be - to read the move from standard input.
    """
    file_name = checked_name(move_file, check_name)
    require_record(game)
    data, source = read_input(move_file, kind="move")
    with locked(game):
        try:
            done = submit_move(game, data, source, author=author, views_dir=views_dir,
                               dry_run=dry_run, file_name=file_name)
        except InputError as exc:
            raise swapped_arguments(exc, game, "apply") from None
    move = done.move
    if done.duplicate:
        click.echo(already_applied(done.record, move, done.repaired, views_dir or
                                   default_views_dir(game)))
        return
    prefix = "Dry run, nothing written: " if dry_run else ""
    click.echo(f"{prefix}Turn {move.turn}: {views_mod.account(done.events)}")
    if done.replay.state.finished and not dry_run:
        click.echo(f"The game is over: {game} now reveals its seed, so anyone can check the whole "
                   f"game with: rebis-pbm verify {game}")


def swapped_arguments(exc: InputError, game: PathLike, command: str) -> InputError:
    """``exc`` (GAME could not be read as a record), or, when GAME reads as a move file, an
    InputError saying that the arguments look swapped (``rebis-pbm COMMAND GAME.yaml
    MOVE.yaml``). Anything else about the record is left as ``exc`` says it."""
    source = os.fspath(game)
    if exc.source != source:
        return exc
    try:
        doc = load_yaml(read_input(source, kind="record")[0], source=source, kind="move").data
    except InputError:
        return exc
    if isinstance(doc, dict) and "turn" in doc and "player" in doc and "moves" not in doc:
        return InputError(f"this is a move file, not a game record: the arguments look swapped; "
                          f"write rebis-pbm {command} GAME.yaml MOVE.yaml", source=source)
    return exc


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


def _views_after_record(game: PathLike, views_dir: PathLike, record: Record, replay: Replay, *,
                        stale_only: bool = False) -> int:
    """Write the views once the record holds the move; a failure here must not read as "nothing
    changed", so it says what happened and how to repair it (exit 4: the disk, not the input)."""
    try:
        return write_views(views_dir, record, replay, stale_only=stale_only)
    except OSError as exc:
        said = explain_os_error(exc)
        what = f"{said.where}: {said.problem}" if said.where else said.problem
        raise Failure(f"the move was recorded in {game}, but the views could not be written "
                      f"({what}); {said.fix}, then run the same apply again to rewrite them",
                      EXIT_BUG) from None


def _viewer_option(f):
    f = click.option("--public", is_flag=True, help="The spectator view (no hidden card).")(f)
    return click.option("--player", metavar="NAME", help="Whose view.")(f)


@cli.command(epilog=EXIT_CODES)
@click.argument("game", type=click.Path(dir_okay=False, readable=False))
@_viewer_option
@click.option("--format", "fmt", type=click.Choice(["text", "yaml", "json", "svg"]),
              default="text", show_default=True, help="svg: a picture of the table.")
def view(game: str, player, public: bool, fmt: str) -> None:
    """Print one player's view of GAME (or, with --public, the spectator view)."""
    if bool(player) == public:
        raise click.UsageError("give exactly one of --player NAME or --public")
    record, replay = load_game(game)
    if player is not None and player not in record.players:
        raise click.BadParameter(f"no player {player!r} in game {record.game} (players: "
                                 f"{', '.join(record.players)})", param_hint="--player")
    click.echo(views_mod.render(record_view(record, replay, player), fmt), nl=False)


@cli.command(epilog=EXIT_CODES)
@click.argument("game", type=click.Path(dir_okay=False, readable=False))
@click.option("--player", metavar="NAME", required=True, help="The player to move.")
@click.option("--format", "fmt", type=click.Choice(["yaml", "json"]), default="yaml",
              show_default=True)
def moves(game: str, player: str, fmt: str) -> None:
    """List every legal move for the player to move, each a complete move file for `apply`.

    YAML: one document per move (separated by ---); JSON: a list of documents.
    """
    record, state = load_for_mover(game, player)
    click.echo(views_mod.moves_listing(record.game, state, fmt), nl=False)


@cli.command(epilog=EXIT_CODES)
@click.argument("game", type=click.Path(dir_okay=False, readable=False))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
def score(game: str, fmt: str) -> None:
    """Print the score of GAME shelf by shelf (R13) and the burdens (R12)."""
    record, replay = load_game(game)
    state = replay.state
    table = score_table(state)
    data = {
        "game": record.game,
        "phase": state.phase,
        "scores": [{"player": p.player, "total": p.total, "shelves": [
            {"shelf": s.shelf, "active": s.active, "value": s.value, "tokens": s.tokens,
             "multiplier": s.multiplier, "score": s.score} for s in p.shelves]} for p in table],
        "burdens": [{"player": b.player, "negative": b.negative, "hand": b.hand,
                     "total": b.total} for b in burdens(state)],
        "winners": list(winners(state)) if state.finished else None,
    }
    if fmt == "json":
        click.echo(json.dumps(data, indent=2))
        return
    head = "Final score" if state.finished else f"Score so far (turn {state.turn})"
    click.echo(f"{head} of game {record.game}:")
    for p in table:
        parts = [f"shelf {s.shelf}: {s.value} x {s.multiplier} = {s.score}" for s in p.shelves]
        click.echo(f"  {p.player}: {p.total}  ({'; '.join(parts)})")
    click.echo("Burden (R12): " + ", ".join(f"{b.player} {b.total}" for b in burdens(state)))
    if state.finished:
        won = data["winners"]
        click.echo(("Winner: " if len(won) == 1 else "Shared win: ") + " and ".join(won))


@cli.command(epilog=EXIT_CODES)
@click.argument("name", type=click.Choice(["move", "record", "view"]))
def schema(name: str) -> None:
    """Print the JSON Schema of a move file, a game record or a view."""
    from .schemas import schema_text

    click.echo(schema_text(name), nl=False)


def main() -> None:
    """Console-script entry point."""
    try:
        cli.main(prog_name="rebis-pbm")
    except KeyboardInterrupt:
        click.echo("rebis-pbm: interrupted; run the same command again", err=True)
        sys.exit(EXIT_INTERRUPTED)


# Commands registered by their own modules (`@cli.command()`), imported when first needed:
# command name -> module (see Group). One line per command.
LAZY_COMMANDS = {
    "verify": ".cli_audit",
    "reveal": ".cli_audit",
    "bot": ".cli_bots",
    "simulate": ".cli_bots",
    "mail": ".cli_mail",
    "check": ".cli_check",
    "site": ".cli_site",
}

if __name__ == "__main__":
    # `python -m rebis_pbm.cli` runs this file as __main__, a second copy of the module: the
    # commands of cli_audit and cli_mail register on the package's copy, so run that one.
    from rebis_pbm.cli import main as package_main

    package_main()
