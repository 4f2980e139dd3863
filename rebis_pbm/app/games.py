"""Reading a game: its record, its seed and its replay, kept once per process for the same bytes.

Also who may act in it: a player of the game, the one to move (:func:`for_mover`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import NamedTuple

from rebis_pbm.engine import State
from rebis_pbm.engine.phrases import N_, Phrase
from rebis_pbm.errors import InputError, Refused, UsageError
from rebis_pbm.files.atomic import PathLike, read_input
from rebis_pbm.formats.yaml_reader import clip
from rebis_pbm.record import (
    HEADER,
    CorruptRecord,
    Record,
    Replay,
    find_seed,
    parse_record,
    read_game,
)


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
    return record_of(*read_input(os.fspath(record_path), kind="record"))


def record_of(data: bytes, source: str) -> Record:
    """:func:`read_record` of bytes already read."""
    known = _opened.get(data)
    if known is not None:  # these very bytes were read, validated and replayed in this process
        return known.record
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
    seed_for = lambda record: find_seed(record_path, record)  # noqa: E731
    known = _opened.get(data)
    if known is not None and _same_seed(known, seed_for):
        return known
    try:
        game = Game(*read_game(data, source, seed_for))
    except InputError as exc:
        raise damaged_record(exc, data, source) from None
    except CorruptRecord as exc:
        raise CorruptRecord(f"{source} fails verification at {exc}; nothing was written "
                            f"(rebis-pbm verify {source} tells more)", exc.problem) from None
    _opened.keep(data, game)
    return game


KEPT_MAX = 256  # games_kept's bound: about 50 MB of games of 30 moves


class OpenedGames:
    """Games read in this process, by the record's exact bytes: reading the same bytes with the
    same seed gives the same game, so a second read of an unchanged record in one process (the
    sender check of `mail in`, then submit_move) replays nothing. A few games at most (``most``,
    the oldest dropped first): a process handling many games reads each once."""

    __slots__ = ("_games", "_most")

    def __init__(self, most: int = 4) -> None:
        self._games: dict[bytes, Game] = {}
        self._most = most

    def get(self, data: bytes) -> Game | None:
        """The game read from the record bytes ``data``, if kept."""
        return self._games.get(data)

    def keep(self, data: bytes, game: Game) -> None:
        """Keep ``game``, read from ``data``, dropping the oldest games over the bound."""
        self._games[data] = game
        self._trim()

    def clear(self) -> None:
        """Forget every game kept."""
        self._games.clear()

    @contextlib.contextmanager
    def widened(self, count: int) -> Iterator[None]:
        """Within it, up to ``count`` games are kept (at most :data:`KEPT_MAX`, never fewer
        than before)."""
        before = self._most
        self._most = max(before, min(count, KEPT_MAX))
        try:
            yield
        finally:
            self._most = before
            self._trim()

    def _trim(self) -> None:
        games = self._games
        while len(games) > self._most:
            del games[next(iter(games))]  # the oldest


_opened = OpenedGames()  # the process's games read (see OpenedGames)


def games_kept(count: int) -> contextlib.AbstractContextManager[None]:
    """Within it, :func:`open_game` keeps up to ``count`` games read (at most
    :data:`KEPT_MAX`, at least the usual 4): a process that handles a folder of games (``mail
    in`` of a shard) reads each game once for its routing, and its later reads of the same
    unchanged bytes replay nothing."""
    return _opened.widened(count)


def _same_seed(game: Game, seed_for: Callable[[Record], str]) -> bool:
    """Does ``seed_for`` still give ``game``'s seed? Any failure sends the record down the whole
    read again, which raises it as a first read would."""
    try:
        return bool(seed_for(game.record) == game.seed)
    except Exception:
        return False


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
    from rebis_pbm.record.audit import verify as run_verify  # only a damaged record needs it

    problem = run_verify(data, source).problem
    cut_short = problem is not None and (  # no status, or a broken one (verify's code "status")
        (problem.code == "schema" and b"\nstatus:" not in data)
        or (problem.code == "status" and exc.path[:1] == ("status",)))
    if problem is None or not (problem.code == "unreadable" or cut_short):
        return exc
    return CorruptRecord(f"{source} fails verification at {problem.sentence()}; nothing was "
                         f"written (rebis-pbm verify {source} tells more)", problem)


def check_player(record: Record, player: str, option: str = "--player") -> None:
    """Raises UsageError (exit 2) unless ``player`` is one of ``record``'s players."""
    if player not in record.players:
        close = [name for name in record.players if name.casefold() == player.casefold()]
        hint = f"; did you mean {close[0]}?" if close else ""
        raise UsageError(f"no player {clip(player)!r} in game {record.game} (players: "
                         f"{', '.join(record.players)}){hint}", option)


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
        if player in record.waiting_for():
            raise Refused(phrase=Phrase(N_("{player} has no move to make: the deal waits for "
                                           "{player}'s join"), {"player": player}))
        raise Refused(phrase=Phrase(N_("{player} has no move to make: {player} has joined; the "
                                       "deal waits for {players}"),
                                    {"player": player, "players": ", ".join(record.waiting_for())}))
    if record.abandoned(state):
        raise Refused(phrase=abandoned_no_move(player, record.game))
    if state.player_to_move != player:
        raise Refused(phrase=no_move_to_make(player, state))
    return record, state


def abandoned_no_move(player: str, game: str) -> Phrase:
    return Phrase(N_("{player} has no move to make: game {game} was abandoned (its seed was "
                     "revealed with rebis-pbm reveal)"), {"player": player, "game": game})


def no_move_to_make(player: str, state: State) -> Phrase:
    """Why ``player``, not the one to move in ``state``, has no move to make (a phrase)."""
    if state.finished:
        return Phrase(N_("{player} has no move to make: the game is over"), {"player": player})
    return Phrase(N_("{player} has no move to make: turn {turn} is {to_move}'s"),
                  {"player": player, "turn": state.turn, "to_move": state.player_to_move})
