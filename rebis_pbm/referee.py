"""The application layer: each use case of a referee, a player or an auditor, once.

Every shell calls only this module: the command line (:mod:`rebis_pbm.cli`), the mail transport
(:mod:`rebis_pbm.transports.mail_jobs`), the git job and the bots' command. It reads and writes
files (records, secrets, views) and raises the project's errors (:mod:`rebis_pbm.errors`), each
carrying its exit code; it never prints and never imports click. The rules are the engine's
(:mod:`rebis_pbm.engine`), the record's form and checks :mod:`rebis_pbm.record`'s, what a viewer
may know :mod:`rebis_pbm.views`'s.

The use cases: :func:`create_game`, :func:`submit_move` (the one way a move enters a game, for
every transport), :func:`check_move_file`, :func:`player_view`, :func:`legal_moves_listing`,
:func:`score`, :func:`verify`, :func:`reveal`, :func:`bot_move`. A program may call them as they
are (docs/api.md):

>>> import tempfile, os
>>> folder = tempfile.mkdtemp()
>>> game = os.path.join(folder, "game.yaml")
>>> created = create_game(game, ["ann", "ben"], seed="doctest seed", game_id="doc")
>>> created.record.players, created.state.player_to_move
(('ann', 'ben'), 'ann')
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from . import views as views_mod
from .engine import IllegalMove, Move, Ruleset, State, apply_move, burdens, score_table, winners
from .errors import ExitCode, Failed, InputError, Refused, UsageError
from .fileio import PathLike, explain_os_error, locked, make_folder, read_input, write_atomic
from .record import (FAIR_DEAL, FORMAT, HEADER, REFEREE_DEAL, CorruptRecord, Join, Record, Replay,
                     SealedMove, ascii_lower, commitment, dump_record, dump_secret, find_seed,
                     parse_record, read_game, salted, secret_path)
from .yamlio import clip, load_yaml

__all__ = [
    "Game", "Created", "Submitted", "create_game", "open_game", "read_record", "submit_move",
    "read_move", "check_move_file", "player_view", "write_views", "legal_moves_listing",
    "for_mover", "score", "verify", "reveal", "bot_move", "default_views_dir", "secret_path",
    "ruleset_from", "already_applied", "move_file_name", "require_record",
]


# --- reading a game --------------------------------------------------------------------------

class Game(NamedTuple):
    """A game read from its record and replayed from its seed.

    Attributes:
        record: the record as read (:class:`~rebis_pbm.record.Record`).
        replay: the replayed game: the state after the last move, the setup's events, and each
            move with its events.
        seed: the game's seed (secret until the game ends: never show it to a player).
    """

    record: Record
    replay: Replay
    seed: str

    @property
    def state(self) -> State:
        """The state after the record's last move."""
        return self.replay.state


def default_views_dir(record_path: PathLike) -> str:
    """``game.yaml`` -> ``game.views`` beside it."""
    folder, name = os.path.split(os.fspath(record_path))
    stem = name[:-5] if name.endswith(".yaml") else name
    return os.path.join(folder, stem + ".views")


def require_record(game: PathLike) -> None:
    """Refuse a GAME that is not an existing file before anything else happens (before its
    lock is taken).

    Raises:
        InputError: a missing path or a folder (exit 2).
    """
    if os.path.isdir(game):
        raise InputError("this is a folder, not a game record; give the path of the record "
                         "(e.g. game.yaml) inside it", source=os.fspath(game))
    if not os.path.exists(game):
        raise InputError("there is no such game record; check the name and the folder "
                         "(`rebis-pbm new` creates a game)", source=os.fspath(game))


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


def open_game(record_path: PathLike) -> Game:
    """Read and validate a record, find its seed (revealed, ``REBIS_PBM_SEED`` or the secret
    file) and replay it, checking every digest on the way (docs/audit.md).

    Raises:
        InputError, SeedError: the record or its seed cannot be read (exit 2).
        CorruptRecord: the record fails verification (exit 3); the message names the turn.
    """
    data, source = read_input(os.fspath(record_path), kind="record")
    try:
        return Game(*read_game(data, source, lambda record: find_seed(record_path, record)))
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
    from .record.audit import verify as run_verify  # only a damaged record needs it

    problem = run_verify(data, source).problem
    cut_short = problem is not None and problem.code == "schema" and (
        b"\nstatus:" not in data or exc.path[:1] == ("status",))
    if problem is None or not (problem.code == "unreadable" or cut_short):
        return exc
    return CorruptRecord(f"{source} fails verification at {problem.sentence()}; nothing was "
                         f"written (rebis-pbm verify {source} tells more)", problem)


def check_player(record: Record, player: str, option: str = "--player") -> None:
    """Raises UsageError (exit 2) unless ``player`` is one of ``record``'s players."""
    if player not in record.players:
        raise UsageError(f"no player {clip(player)!r} in game {record.game} (players: "
                         f"{', '.join(record.players)})", option)


def for_mover(game: PathLike, player: str) -> tuple[Record, State]:
    """:func:`open_game` for a use case that acts for ``player``, who must be the one to move.

    Raises:
        UsageError: ``player`` is not in the game (exit 2).
        Refused: it is not ``player``'s move, or the game is over or abandoned (exit 1).
    """
    record, replay, _ = open_game(game)
    state = replay.state
    check_player(record, player)
    if record.joining() and not record.abandoned(state):
        whose = (f"the deal waits for {player}'s join" if player in record.waiting_for()
                 else f"{player} has joined; the deal waits for "
                 + ", ".join(record.waiting_for()))
        raise Refused(f"{player} has no move to make: {whose}")
    if record.abandoned(state):
        raise Refused(f"{player} has no move to make: game {record.game} was abandoned (its "
                      f"seed was revealed with rebis-pbm reveal)")
    if state.player_to_move != player:
        whose = "the game is over" if state.finished else \
            f"turn {state.turn} is {state.player_to_move}'s"
        raise Refused(f"{player} has no move to make: {whose}")
    return record, state


# --- views -----------------------------------------------------------------------------------

def record_view(record: Record, replay: Replay, viewer: str | None) -> dict:
    """``views.build_view`` for a game: every card once the record reveals its seed, the
    addresses when the game made them public; ``views.join_view`` in the join phase. Every view
    carries the record's witness (docs/audit.md, "Witnesses")."""
    if record.joining():
        view = views_mod.join_view(record.game, record.players, record.waiting_for(), viewer)
        if record.seed is not None:
            view["abandoned"] = True
            view.pop("move_template", None)
    else:
        view = views_mod.build_view(record.game, replay, viewer, revealed=record.seed is not None,
                                    abandoned=record.abandoned(replay.state),
                                    addresses=record.shown_addresses())
    if record.format == "rebis-pbm/1":  # a rebis-pbm/1 game keeps its views as they were
        view["view"] = "rebis-pbm/view/1"
        return view
    view["witness"] = {"game": record.game, "move": len(record.moves),
                       "chain_sha256": record.last_digest()}
    return view


def player_view(game: PathLike, player: str | None) -> dict:
    """The view of ``player`` (None: the spectator view) of the game in ``game``, as a dict
    that :func:`rebis_pbm.views.render` turns into text, YAML or JSON (docs/views.md).

    Raises:
        UsageError: ``player`` is not in the game; as :func:`open_game` otherwise.
    """
    record, replay, _ = open_game(game)
    if player is not None:
        check_player(record, player)
    return record_view(record, replay, player)


def write_views(views_dir: PathLike, record: Record, replay: Replay, *,
                stale_only: bool = False) -> int:
    """One view per player (YAML and text, mode 0600) and the public view (mode 0644).

    A view file that already holds exactly the right bytes and mode is left alone, so writing the
    views of an unchanged game changes nothing on disk. With ``stale_only``, only view files that
    exist but are out of date are rewritten (what an ``apply`` interrupted after writing the
    record leaves); no file or folder is created. Returns how many files were written.

    Raises:
        OSError: a :class:`~rebis_pbm.fileio.FileError`, worded for people, when the folder or
            a file cannot be written.
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
        Failed: it cannot be created (exit 2), said before anything is written.
    """
    try:
        return make_folder(views_dir, what="the views folder")
    except OSError as exc:
        said = explain_os_error(exc)
        raise Failed(f"{said.where}: {said.problem}, so nothing was written; {said.fix}") from None


def _views_after_record(game: PathLike, views_dir: PathLike, record: Record, replay: Replay, *,
                        stale_only: bool = False) -> int:
    """Write the views once the record holds the move; a failure here must not read as "nothing
    changed", so it says what happened and how to repair it (exit 4: the disk, not the input)."""
    try:
        return write_views(views_dir, record, replay, stale_only=stale_only)
    except OSError as exc:
        said = explain_os_error(exc)
        what = f"{said.where}: {said.problem}" if said.where else said.problem
        raise Failed(f"the move was recorded in {game}, but the views could not be written "
                     f"({what}); {said.fix}, then run the same apply again to rewrite them",
                     ExitCode.BUG) from None


# --- creating a game -------------------------------------------------------------------------

SETTABLE_RULES = ("golden_dust", "gold", "red", "shelf_limit", "hand_size", "multiplier")


def ruleset_from(zero: bool = False, rules: Iterable[str] = ()) -> Ruleset:
    """The ruleset of a new game: the rulings' defaults (R1-R4), the Zero option (R2), and
    ``rules`` as ``NAME=VALUE`` texts (NAME one of :data:`SETTABLE_RULES`).

    >>> ruleset_from(True, ["shelf_limit=20"]).shelf_limit
    20

    Raises:
        UsageError: a text that is not ``NAME=VALUE``, an unknown NAME, a value that is not a
            whole number where one is needed, or a value out of its range (option ``--rule``).
    """
    values: dict[str, object] = {"zero": zero}
    for item in rules:
        name, sep, text = item.partition("=")
        if not sep or name not in SETTABLE_RULES:
            raise UsageError(f"{clip(item)!r}: write NAME=VALUE with NAME one of "
                             f"{', '.join(SETTABLE_RULES)}", "--rule")
        if name == "multiplier":
            values[name] = text
        else:
            try:
                values[name] = int(text)
            except ValueError:
                raise UsageError(f"{name} must be a whole number, not {clip(text)!r}",
                                 "--rule") from None
    try:
        return Ruleset(**values)  # type: ignore[arg-type]  # checked by Ruleset itself
    except ValueError as exc:
        raise UsageError(str(exc), "--rule") from None


def check_players(players: Sequence[str], addresses: dict[str, str]) -> None:
    """Refuse players a game cannot have: not 2 to 4, a name outside the schema's form, the
    spectator view's name, two names that differ only in case, an address shared by two.

    Raises:
        UsageError: one sentence naming the fault (option ``--player``).
    """
    from .schemas import defined_pattern

    if not 2 <= len(players) <= 4:
        raise UsageError(f"Rebis is played by 2 to 4 players; give --player 2 to 4 times (got "
                         f"{len(players)})", "--player")
    pattern = defined_pattern("move", "player")
    for name in players:
        if not pattern.fullmatch(name):
            raise UsageError(f"{clip(name)!r} is not a valid name: a letter, then letters, "
                             f"digits, '_' or '-', at most 32 characters", "--player")
        if name.casefold() == views_mod.PUBLIC:
            raise UsageError("'public' is the spectator view's name; choose another", "--player")
    if len({name.casefold() for name in players}) != len(players):
        # Names become view file names: alice.txt and Alice.txt are one file on many disks.
        raise UsageError("each player needs a different name, and names that differ only in "
                         "upper/lower case count as the same", "--player")
    taken: dict[str, str] = {}
    for name, address in addresses.items():
        if ascii_lower(address) in taken:
            raise UsageError(f"{taken[ascii_lower(address)]} and {name} have the same address "
                             f"{address}; each player needs their own, so that a move's sender "
                             f"tells who sent it", "--player")
        taken[ascii_lower(address)] = name


class Created(NamedTuple):
    """What :func:`create_game` wrote.

    Attributes:
        record: the new record (no move yet).
        state: the state awaiting turn 1.
        record_path, secret_path, views_dir: where the record, the seed and the views are.
    """

    record: Record
    state: State | None
    record_path: str
    secret_path: str
    views_dir: str


def create_game(game: PathLike, players: Sequence[str], *, addresses: dict[str, str] | None = None,
                public_addresses: bool = False, seed: str | None = None,
                ruleset: Ruleset | None = None, game_id: str | None = None,
                random_seats: bool = False, views_dir: PathLike | None = None,
                insecure_seed: bool = False, referee_deal: bool = True,
                keys: dict[str, str] | None = None) -> Created:
    """Create a game: write the record ``game``, its secret seed beside it, and the first views.

    Args:
        game: the record's path (``game.yaml``); its folder must exist.
        players: 2 to 4 names in seat order (R5); the first plays first.
        addresses: player name -> e-mail address, for play by e-mail (docs/mail.md).
        public_addresses: show the addresses in every view.
        seed: the seed to shuffle from (default: 128 random bits). A guessable seed lets anyone
            compute every hand: refused unless ``insecure_seed`` (:func:`rebis_pbm.trust.check_seed`).
        ruleset: the game's parameters (default: the rulings', R1-R4).
        game_id: the game's id (default: 40 random bits; it tells nothing of the seed).
        referee_deal: deal at once from the seed alone; False: a fair deal, the game waits for
            every player's join (docs/shuffle.md). The command line's default is the fair deal.
        keys: player -> the text of an OpenSSH public key file (one key or several, one a line):
            that player's moves must be signed (docs/audit.md, "Signed moves").
        random_seats: draw the seat order from the seed (R5).
        views_dir: where the views go (default: :func:`default_views_dir`).

    Raises:
        UsageError: bad players, an empty or guessable seed, a malformed game id, a key for no
            player or a key file that holds no key (exit 2).
        Failed: the folder does not exist, or the record or its secret already exists (exit 2).
        OSError: a file cannot be written (nothing is left behind).
    """
    from .engine import seat_order, setup
    from .schemas import defined_pattern

    addresses = dict(addresses or {})
    check_players(players, addresses)
    ruleset = ruleset or Ruleset()
    game = os.fspath(game)
    secret_file = secret_path(game)
    folder = os.path.dirname(game) or "."
    if not os.path.isdir(folder):
        raise Failed(f"{folder}: there is no such folder; create it first (nothing was written)")
    import secrets

    from .record.signing import parse_keys
    from .trust import check_seed

    if seed is None:
        seed = secrets.token_hex(16)
    else:
        check_seed(seed, insecure_seed)
    parsed_keys: dict[str, tuple[str, ...]] = {}
    for name, text in (keys or {}).items():
        if name not in players:
            raise UsageError(f"--key {clip(name)}=FILE: {clip(name)} is not a player (players: "
                             f"{', '.join(players)})", "--key")
        try:
            parsed_keys[name] = parse_keys(text, f"the key file of {name}")
        except ValueError as exc:
            raise UsageError(str(exc), "--key") from None
    secret = salted(seed, secrets.token_hex(16))  # the salt: 128 secret random bits
    if game_id is None:
        game_id = f"rebis-{secrets.token_hex(5)}"  # random: it tells nothing of the seed
    elif not defined_pattern("move", "game").fullmatch(game_id):
        raise UsageError("use letters, digits, '.', '_' or '-' (at most 64)", "--game-id")
    seats = seat_order(players, seed) if random_seats else tuple(players)
    record = Record(game_id, ruleset, seats, commitment(FORMAT, secret), addresses=addresses,
                    public_addresses=public_addresses,
                    deal=REFEREE_DEAL if referee_deal else FAIR_DEAL, keys=parsed_keys)
    state = None
    setup_events: tuple = ()
    try:
        state, setup_events = setup(ruleset, seats, seed if referee_deal else "check")
    except ValueError as exc:
        raise Failed(str(exc)) from None
    if not referee_deal:
        state, setup_events = None, ()
    views_dir = os.fspath(views_dir or default_views_dir(game))
    # Under the record's lock, so that two `new` for the same file name cannot both write; a
    # failed `new` removes what it wrote.
    with locked(game):
        for path in (game, secret_file):
            if os.path.exists(path):
                raise Failed(f"{path} already exists; choose another file name (nothing was "
                             f"written)")
        made = make_views_dir(views_dir)  # before the record: a bad views folder writes nothing
        try:
            write_atomic(secret_file, dump_secret(game_id, secret, FORMAT), mode=0o600)
            write_atomic(game, dump_record(record, state))
            write_views(views_dir, record, Replay(state, setup_events))
        except BaseException:
            for path in (game, secret_file):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
            if made:
                import shutil

                shutil.rmtree(views_dir, ignore_errors=True)  # made by this call just now
            raise
    return Created(record, state, game, secret_file, views_dir)


# --- a move entering a game ------------------------------------------------------------------

class Submitted(NamedTuple):
    """What :func:`submit_move` did.

    Attributes:
        record, replay: the game after the move (as before it when ``duplicate``).
        move: the move submitted.
        events: the move's events (``()`` when ``duplicate``).
        duplicate: the move was already in the record (see :meth:`Record.holds`).
        repaired: when ``duplicate``, how many stale view files were rewritten (an earlier
            ``apply`` interrupted after writing the record); normally 0: nothing changed.
        views_dir: where the views are.
    """

    record: Record
    replay: Replay
    move: Move
    events: tuple[object, ...]
    duplicate: bool
    repaired: int = 0
    views_dir: str = ""

    @property
    def finished(self) -> bool:
        """Whether this move ended the game (the record now reveals its seed)."""
        return not self.duplicate and self.replay.state is not None and self.replay.state.finished


def already_applied(record: Record, move: Move, repaired: int = 0,
                    views_dir: PathLike | None = None) -> str:
    """What to say when ``move`` is already in ``record`` (see :meth:`Record.holds`);
    ``repaired`` view files were rewritten in ``views_dir`` (see :class:`Submitted`)."""
    entry = record.moves[move.turn - 1]
    # A sealed card is not compared (Record.holds), so say only what was compared.
    what = (f": a closing play on {entry.owner}'s shelf, like this one (its card is sealed in "
            f"the record, so the card sent is not compared)"
            if isinstance(entry, SealedMove) else " with exactly this move")
    extra = (f" (rewrote {repaired} stale view file(s) in {os.fspath(views_dir or '')}/)"
             if repaired else "; nothing changed")
    return f"Turn {move.turn} by {move.player} was already applied{what}{extra}."


def author_player(record: Record, author: str) -> str | None:
    """The player ``author`` stands for: a player's name, or an address registered with
    ``new`` (None when no player registered that address).

    Raises:
        UsageError: a name that is not a player's (option ``--as``).
    """
    if "@" in author:  # player names cannot contain '@' (move schema), so this is an address
        return record.player_at(author)
    check_player(record, author, "--as")
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
        UsageError: ``author`` is a name that is not a player's.
    """
    from .schemas import validate

    try:
        loaded = load_yaml(data, source=source, kind="move")
        joining = isinstance(loaded.data, dict) and "join" in loaded.data
        validate(loaded, {"$ref": "move.schema.json#/$defs/join_move"} if joining else "move")
    except InputError as exc:
        raise Refused(str(exc), ExitCode.INPUT) from None
    doc = loaded.data
    if doc["game"] != record.game:
        raise Refused(f"{source}: this move is for game {doc['game']}, but {os.fspath(game)} is "
                      f"game {record.game}", ExitCode.INPUT)
    if file_name is not None and not joining:
        expected = move_file_name(doc["turn"], doc["player"])
        if file_name != expected:
            raise Refused(f"{source}: this file holds the move of turn {doc['turn']} by "
                          f"{doc['player']}, so it must be named {expected}; rename the file, "
                          f"or correct the turn and player in it", ExitCode.INPUT)
    if author is not None:
        sender = author_player(record, author)
        if sender is None:
            raise Refused(f"{source}: {clip(author)} is not the address of any player of game "
                          f"{record.game}; a player's address is registered when the game is "
                          f"created")
        # A name that is no player's is left to the rules, which say so and list the players.
        if sender != doc["player"] and doc["player"] in record.players:
            who = author if sender == author else f"{clip(author)} ({sender})"
            raise Refused(f"{source}: this move is for {doc['player']}, but it comes from "
                          f"{who}; a player can only send their own moves")
    if joining:
        return JoinMove(str(doc["player"]), str(doc["join"]),
                        None if doc.get("key") is None else str(doc["key"]))
    return Move.from_dict(doc)


class JoinMove(NamedTuple):
    """A join move as sent (rebis-pbm/2 fair deal, docs/shuffle.md): ``player``, their
    ``entropy`` and, optionally, the text of their SSH public ``key``. ``turn`` is 0: a join
    comes before turn 1."""

    player: str
    entropy: str
    key: str | None = None
    turn: int = 0


def check_signature(record: Record, move, data: bytes, signature: bytes | None,
                    source: str) -> tuple[bytes, str] | None:
    """The signature of a move file (docs/audit.md, "Signed moves"): required when the mover
    registered a key, and then valid over ``data`` (the file's exact bytes) by that key, in
    namespace ``rebis-pbm``. Returns ``(data, armoured signature)`` for the record, or None for
    a player without a key (a signature is then ignored).

    Raises:
        Refused: no signature, or one that does not check (exit 1).
    """
    from .record.signing import parse_keys, signed_by

    keys = record.player_keys(move.player) if move.player in record.players else ()
    if not keys and isinstance(move, JoinMove) and move.key is not None:
        try:  # a join that registers a key proves it holds the key by signing with it
            keys = parse_keys(move.key, f"{source}: key")
        except ValueError as exc:
            raise Refused(str(exc), ExitCode.INPUT) from None
        if len(keys) != 1:
            raise Refused(f"{source}: key: give one public key line", ExitCode.INPUT)
    if not keys:
        return None
    if signature is None:
        raise Refused(f"{source}: move rejected: {move.player} registered a key, so their moves "
                      f"must be signed (ssh-keygen -Y sign -f KEY -n rebis-pbm FILE writes "
                      f"FILE.sig); no signature came with it")
    text = signature.decode("ascii", "replace")
    if not signed_by(data, text, keys):
        raise Refused(f"{source}: move rejected: its signature does not check against "
                      f"{move.player}'s key over this exact file (sign the file as sent, with "
                      f"ssh-keygen -Y sign -n rebis-pbm)")
    return data, text.strip() + "\n"


def submit_move(game: PathLike, data: bytes, source: str, *, author: str | None = None,
                views_dir: PathLike | None = None, dry_run: bool = False,
                file_name: str | None = None, signature: bytes | None = None) -> Submitted:
    """The one way a move enters a game, for every transport: check it, append it to the
    record, write the views. Takes the record's lock for the whole of it.

    ``data`` is the move file's bytes and ``source`` its name in messages. In order: what
    :func:`read_move` checks (the strict loader and the move schema, the game id, the file's
    name when ``file_name`` is given, the sender when ``author`` is given), a resubmission of an
    already recorded move (``duplicate``: only existing view files that are out of date are
    rewritten, normally none), an abandoned game, the rules (R6-R12). Unless ``dry_run``, the
    record (the move with its chain link; the seed revealed when the move ends the game,
    docs/audit.md), then the views (in ``views_dir``, default beside GAME) are written.

    ``signature``: the armoured SSH signature over ``data`` (``MOVE.yaml.sig``, a mail's
    ``.sig`` attachment or armoured block, the git job's committed ``.sig``), required when the
    mover registered a key (:func:`check_signature`); the record keeps it. A join move
    (``join:``) enters a fair deal's join phase the same way; the last join deals.

    Raises:
        Refused: the move is unreadable, schema-invalid, for another game, misnamed (exit 2),
            not from its player, or against the rules, stale, late or for an abandoned game
            (exit 1). Nothing is written.
        Failed: the views folder cannot be created (exit 2, nothing written), or the record was
            written but a view could not be (exit 4; the same call again repairs the views).
        InputError, SeedError, CorruptRecord, Busy, OSError: the record or its seed is at fault
            (a record failing verification included), another command holds the record, or
            the record cannot be written.
    """
    require_record(game)
    with locked(game):
        return _submit(game, data, source, author=author, views_dir=views_dir,
                       dry_run=dry_run, file_name=file_name, signature=signature)


def _submit(game: PathLike, data: bytes, source: str, *, author: str | None,
            views_dir: PathLike | None, dry_run: bool, file_name: str | None,
            signature: bytes | None = None) -> Submitted:
    record, replay, seed = open_game(game)
    move = read_move(record, game, data, source, author=author, file_name=file_name)
    views_dir = os.fspath(views_dir or default_views_dir(game))
    signed = check_signature(record, move, data, signature, source)
    if isinstance(move, JoinMove):
        return _join(game, record, replay, seed, move, signed, source, views_dir, dry_run)
    if record.joining():
        raise Refused(f"{source}: move rejected: the deal waits for joins by "
                      f"{', '.join(record.waiting_for())}; no turn can be played before")
    if record.holds(move):
        # A mail delivered twice. Existing view files are rewritten only where they are stale
        # (an earlier apply interrupted after the record was written): normally none.
        repaired = 0 if dry_run else _views_after_record(game, views_dir, record, replay,
                                                         stale_only=True)
        return Submitted(record, replay, move, (), duplicate=True, repaired=repaired,
                         views_dir=views_dir)
    if record.abandoned(replay.state):
        raise Refused(f"{source}: move rejected: game {record.game} was abandoned (its seed "
                      f"was revealed with rebis-pbm reveal); no more moves can be played")
    try:
        state, events = apply_move(replay.state, move)
    except IllegalMove as exc:
        raise Refused(f"{source}: move rejected: {exc.message}", reason=exc.code) from None
    # The seed also seals the card of a closing play in the public record (R8.1).
    new_record = record.with_move(move, state, seed, events, signed)
    if state.finished:  # the game is over: the record reveals the seed (docs/audit.md)
        new_record = new_record.revealed(seed)
    new_replay = Replay(state, replay.setup_events, replay.history + ((move, events),))
    if not dry_run:
        make_views_dir(views_dir)  # fail before the record changes
        write_atomic(game, dump_record(new_record, state))
        _views_after_record(game, views_dir, new_record, new_replay)
    return Submitted(new_record, new_replay, move, events, duplicate=False, views_dir=views_dir)


def _join(game: PathLike, record: Record, replay: Replay, seed: str, move: JoinMove,
          signed: tuple[bytes, str] | None, source: str, views_dir: str,
          dry_run: bool) -> Submitted:
    """A join move entering the join phase; the last join deals (docs/shuffle.md)."""
    from .engine import setup
    from .record import Proof

    if move.player not in record.players:
        raise Refused(f"{source}: {clip(move.player)} is not a player of game {record.game} "
                      f"(players: {', '.join(record.players)})")
    if record.deal != FAIR_DEAL:
        raise Refused(f"{source}: move rejected: game {record.game} was dealt by the referee "
                      f"(new --referee-deal): there is nothing to join")
    if record.abandoned(replay.state):
        raise Refused(f"{source}: move rejected: game {record.game} was abandoned")
    for join in record.joins:
        if join.player == move.player:
            if join.entropy == move.entropy and join.key == _key_line(move.key):
                return Submitted(record, replay, move, (), duplicate=True, views_dir=views_dir)
            raise Refused(f"{source}: move rejected: {move.player} has joined already; a "
                          f"player joins once")
    proof = None if signed is None else Proof(signed[1], signed[0].decode("utf-8"))
    new_record = record.with_join(Join(move.player, move.entropy, _key_line(move.key), proof))
    new_replay = Replay(None, ())
    if not new_record.joining():
        state, setup_events = setup(record.ruleset, record.players, new_record.deal_seed(seed))
        new_replay = Replay(state, setup_events)
    if not dry_run:
        make_views_dir(views_dir)
        write_atomic(game, dump_record(new_record, new_replay.state))
        _views_after_record(game, views_dir, new_record, new_replay)
    return Submitted(new_record, new_replay, move, (), duplicate=False, views_dir=views_dir)


def _key_line(text: str | None) -> str | None:
    if text is None:
        return None
    from .record.signing import parse_keys

    return parse_keys(text, "key")[0]


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


def check_move_file(game: PathLike, data: bytes, source: str, *, author: str | None = None,
                    file_name: str | None = None) -> tuple[Record, Move]:
    """Check a move file without the seed: what :func:`read_move` checks (its form, its game,
    its name, its sender), not the rules. Reads the record without replaying it; writes
    nothing. Anyone may run it: a player before sending, or a pull request's check.

    Raises:
        Refused, UsageError: as :func:`read_move`; InputError, CorruptRecord: the record
            (see :func:`swapped_arguments` for a move file given as the record).
    """
    require_record(game)
    record = read_record(game)
    return record, read_move(record, game, data, source, author=author, file_name=file_name)


# --- reading a game for people ---------------------------------------------------------------

def legal_moves_listing(game: PathLike, player: str, fmt: str = "yaml") -> str:
    """Every legal move of ``player``, who must be the one to move, each a complete move file
    (YAML documents separated by ``---``, or a JSON list): :func:`rebis_pbm.views.moves_listing`.

    Raises:
        as :func:`for_mover`.
    """
    record = read_record(game)
    check_player(record, player)
    if record.joining() and record.seed is None and player in record.waiting_for():
        from .trust import join_listing

        return join_listing(record.game, player, fmt)
    record, state = for_mover(game, player)
    return views_mod.moves_listing(record.game, state, fmt)


def score(game: PathLike) -> dict:
    """The score of the game shelf by shelf (R13), the burdens (R12) and, once it is over, the
    winners: ``{"game", "phase", "turn", "scores": [{"player", "total", "shelves": [{"shelf",
    "active", "value", "tokens", "multiplier", "score"}]}], "burdens": [{"player", "negative",
    "hand", "total"}], "winners": [names] or None}``.

    Raises:
        as :func:`open_game`.
    """
    record, replay, _ = open_game(game)
    state = replay.state
    if state is None:
        raise Refused(f"game {record.game} has no score yet: the deal waits for joins by "
                      f"{', '.join(record.waiting_for())}")
    return {
        "game": record.game,
        "phase": str(state.phase),
        "turn": state.turn,
        "scores": [{"player": p.player, "total": p.total, "shelves": [
            {"shelf": s.shelf, "active": s.active, "value": s.value, "tokens": s.tokens,
             "multiplier": s.multiplier, "score": s.score} for s in p.shelves]}
            for p in score_table(state)],
        "burdens": [{"player": b.player, "negative": b.negative, "hand": b.hand,
                     "total": b.total} for b in burdens(state)],
        "winners": list(winners(state)) if state.finished else None,
    }


def verify(game: PathLike, seed_file: PathLike | None = None,
           witnesses: Sequence[PathLike] = ()):  # -> record.audit.Report
    """Check that the record in ``game`` is the game that was played, by the rules, and
    unedited (docs/audit.md). Anyone can: without the seed, the form, the header digest and
    each move's turn, seat order and chain digest; with it (revealed in the record, the secret
    file ``seed_file``, ``REBIS_PBM_SEED`` or the secret file beside the record), every move
    replayed and every keyed digest.

    ``witnesses``: saved views or mails (:func:`rebis_pbm.trust.read_witness`); the record
    must still hold each one's chain digest at its move, else the report fails naming it.

    Returns:
        a :class:`rebis_pbm.record.audit.Report`; ``report.verified`` says whether it passed.

    Raises:
        InputError: the record, the seed file or a witness cannot be read (exit 2).
        SeedError: the seed file is another game's.
    """
    from .record import SEED_ENV, read_secret
    from .record.audit import verify as run_verify

    data, source = read_input(os.fspath(game), kind="record")

    def find(record: Record) -> tuple[str, str] | None:
        if seed_file is not None:
            return read_secret(seed_file, record), os.fspath(seed_file)
        if record.seed is not None:
            return None  # the record's own seed is the one to check
        if os.environ.get(SEED_ENV):
            return os.environ[SEED_ENV], SEED_ENV
        sidecar = secret_path(game)
        if os.path.exists(sidecar):
            return read_secret(sidecar, record), sidecar
        return None

    from .trust import read_witness

    seen = [read_witness(os.fspath(w)) for w in witnesses]
    return run_verify(data, source, find, seen)


class Revealed(NamedTuple):
    """What :func:`reveal` did: ``record`` and ``state`` after it; ``already`` when the record
    revealed its seed before (nothing written)."""

    record: Record
    state: State
    already: bool


def reveal(game: PathLike, *, confirm: bool, views_dir: PathLike | None = None) -> Revealed:
    """Write the seed of an abandoned game into its record, so that anyone can verify it; the
    game ends for good (``apply`` refuses every further move) and the views show every card.

    Raises:
        Failed: ``confirm`` is false: nothing written, the sentence says what it would do
            (exit 2).
        as :func:`open_game`, and Failed when the views folder cannot be made.
    """
    require_record(game)
    with locked(game):
        record, replay, seed = open_game(game)
        state = replay.state
        if record.seed is not None:
            return Revealed(record, state, True)
        if not confirm:
            raise Failed(f"this would write the seed of game {record.game} into "
                         f"{os.fspath(game)}: every hand, the deck and every face-down card "
                         f"become known and the game ends for good at turn {state.turn} "
                         f"({state.player_to_move} to move); nothing was written. Run again "
                         f"with --yes to do it")
        revealed = record.revealed(seed)
        views_dir = views_dir or default_views_dir(game)
        make_views_dir(views_dir)  # a bad views folder is refused before the record changes
        write_atomic(game, dump_record(revealed, state))
        write_views(views_dir, revealed, replay)  # "abandoned", every card shown
    return Revealed(revealed, state, False)


def public_game(game: PathLike):  # -> site.PublicGame
    """What a spectator may know of the game in ``game``, for its web page
    (:mod:`rebis_pbm.site`): the public table after every move, the public view, the score,
    and ``verify``'s verdict on the record alone. Read with the seed (to replay), but only
    public information is kept.

    Raises:
        as :func:`open_game`.
    """
    from .engine import setup
    from .record.audit import verify as run_verify
    from .site import PublicGame, public_frames, score_data

    record, replay, seed = open_game(game)
    start, setup_events = setup(record.ruleset, record.players, record.deal_seed(seed))
    frames = public_frames(record.game, start, setup_events, replay.history)
    data, _ = read_input(os.fspath(game), kind="record")
    # The record alone, under its file name only: never the secret file, whose report could
    # name a mover's cards, and no folder of the referee's.
    report = run_verify(data, os.path.basename(os.fspath(game)))
    return PublicGame(record.game, frames, record_view(record, replay, None),
                      score_data(replay.state), report.verified, report.render_text(),
                      record.seed, record.seed_sha256)


def write_site(game: PathLike, out_dir: PathLike) -> list[str]:
    """Write the spectators' web page of the game in ``game`` into ``out_dir`` (see
    :func:`public_game` and :func:`rebis_pbm.site.write_site`); returns the files written,
    the page first.

    Raises:
        as :func:`open_game`; OSError when ``out_dir`` cannot be written.
    """
    from . import site

    require_record(game)
    return site.write_site(out_dir, public_game(game))


def bot_move(game: PathLike, player: str, strategy: str = "random",
             seed: str | None = None) -> tuple[Record, Move]:
    """A legal move for ``player`` (who must be the one to move) chosen by a bot that sees only
    ``player``'s information set (docs/bots.md).

    Raises:
        as :func:`for_mover`.
    """
    from .bots import make_bot
    from .engine import information_set

    record, state = for_mover(game, player)
    if seed is None:
        import secrets

        seed = secrets.token_hex(16)
    move = make_bot(strategy, seed).choose(information_set(state, state.to_move))
    return record, move
