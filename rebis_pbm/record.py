"""The game record and its secret: what a game is on disk (docs/formats.md).

The record holds the header (format, game id, resolved ruleset, players in seat order, the seed's
commitment), the accepted moves in order, and a status written for people. Everything else is
replayed from the seed (R5) by the engine. The seed itself is kept out of the record, in a sidecar
``<name>.secret.yaml`` (mode 0600), or in the environment variable ``REBIS_PBM_SEED``.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from .engine import IllegalMove, Move, Ruleset, State, apply_move, score_table, setup, winners
from .engine.state import FINISHED, PLAY, RED_TOKEN
from .yamlio import InputError, dump_yaml, load_yaml

FORMAT = "rebis-pbm/1"
SEED_ENV = "REBIS_PBM_SEED"
HEADER = ("# Rebis game record, written by rebis-pbm: do not edit by hand.\n"
          "# Players: see your view; referee: rebis-pbm apply THIS_FILE MOVE.yaml\n")


class SeedError(ValueError):
    """The seed cannot be found, or does not match the record's commitment."""


class CorruptRecord(ValueError):
    """The record parses but does not replay: a recorded move is illegal at its point."""


def seed_commitment(seed: str) -> str:
    """SHA-256 (lower-case hex) of the seed's UTF-8 bytes: the record's ``seed_sha256``.

    >>> seed_commitment("example")[:16]
    '50d858e0985ecc7f'
    """
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Record:
    """A game record in memory.

    Attributes:
        game: the game id.
        ruleset: the resolved ruleset (R1-R4).
        players: names in seat order (R5).
        seed_sha256: the seed's commitment (see :func:`seed_commitment`).
        moves: the accepted moves, in order.
    """

    game: str
    ruleset: Ruleset
    players: tuple[str, ...]
    seed_sha256: str
    moves: tuple[Move, ...] = ()

    def with_move(self, move: Move) -> "Record":
        return Record(self.game, self.ruleset, self.players, self.seed_sha256, self.moves + (move,))

    def to_dict(self, state: State) -> dict:
        """The record as written, keys in file order; ``state`` is the replayed state after the
        last move (it gives the status)."""
        return {
            "format": FORMAT,
            "game": self.game,
            "ruleset": self.ruleset.as_dict(),
            "players": list(self.players),
            "seed_sha256": self.seed_sha256,
            "moves": [m.as_dict() for m in self.moves],
            "status": status(state),
        }

    @classmethod
    def from_dict(cls, data: dict) -> "Record":
        """Build a record from a schema-valid document (names taken with ``str``, numbers with
        ``int``, as :meth:`Move.from_dict` does).

        Raises:
            ValueError: the ruleset is out of range.
        """
        return cls(
            game=str(data["game"]),
            ruleset=Ruleset.from_dict(data["ruleset"]),
            players=tuple(str(p) for p in data["players"]),
            seed_sha256=str(data["seed_sha256"]),
            moves=tuple(Move.from_dict(m) for m in data["moves"]),
        )


def status(state: State) -> dict:
    """The record's ``status``: whose move and which turn, or how the game ended."""
    if state.phase in (PLAY, RED_TOKEN):
        return {"phase": state.phase, "turn": state.turn, "player": state.player_to_move}
    return {
        "phase": FINISHED,
        "end": state.end_reason,
        "scores": {p.player: p.total for p in score_table(state)},
        "winners": list(winners(state)),
    }


@dataclass(frozen=True)
class Replay:
    """A record played through from its seed.

    Attributes:
        state: the state after the last recorded move.
        setup_events: the events of the deal and of turn 1's draw.
        history: for each recorded move, ``(move, events)``.
    """

    state: State
    setup_events: tuple
    history: tuple[tuple[Move, tuple], ...] = field(default=())


def replay_record(record: Record, seed: str) -> Replay:
    """Deal from ``seed`` and play every recorded move.

    Raises:
        SeedError: ``seed`` does not match the record's commitment.
        CorruptRecord: a recorded move is illegal at its point (the message names the turn).
    """
    check_seed(record, seed)
    state, setup_events = setup(record.ruleset, record.players, seed)
    history = []
    for index, move in enumerate(record.moves):
        try:
            state, events = apply_move(state, move)
        except IllegalMove as exc:
            raise CorruptRecord(f"recorded move {index + 1} (turn {move.turn}, {move.player}) "
                                f"does not replay: {exc.message}") from None
        history.append((move, events))
    return Replay(state, setup_events, tuple(history))


def read_game(data: bytes, source: str, seed_for) -> tuple[Record, Replay]:
    """Parse, check and replay a record's bytes; ``seed_for(record)`` returns its seed (e.g.
    ``lambda r: find_seed(path, r)``).

    A record as rebis-pbm writes it is accepted without the JSON Schema, whose import and checks
    cost more than all the rest of a command: when the strict YAML reader reads it, its integers
    are plainly spelled, the game id and every name have the schema's form, the seed matches,
    every move replays (the rules check each one) and the data is exactly, types included, what
    the writer gives for those moves (:meth:`Record.to_dict` of the replayed state), then the
    schema holds too. Anything else goes through :func:`parse_record` (the schema, with a
    positioned message) and :func:`replay_record`, as before; the outcome is the same.

    Raises:
        InputError, SeedError, CorruptRecord: as :func:`parse_record`, ``seed_for`` and
            :func:`replay_record`.
    """
    found = _read_as_written(data, source, seed_for)
    if found is not None:
        return found
    record = parse_record(data, source)
    return record, replay_record(record, seed_for(record))


def _read_as_written(data: bytes, source: str, seed_for) -> tuple[Record, Replay] | None:
    """The fast path of :func:`read_game`; None sends the record down the checked path."""
    import json

    from .schemas import check_integer_spelling, defined_pattern

    try:
        loaded = load_yaml(data, source=source, kind="record")
        check_integer_spelling(loaded)
        doc = loaded.data
        record = Record.from_dict(doc)
        if not defined_pattern("move", "game").fullmatch(record.game):
            return None
        player = defined_pattern("move", "player")
        if not all(player.fullmatch(name) for name in record.players):
            return None  # names become file names: never trust them unchecked
        replay = replay_record(record, seed_for(record))
        if json.dumps(doc) != json.dumps(record.to_dict(replay.state)):
            return None  # json tells 1 from true and "1", and keeps key order
    except Exception:  # whatever is wrong, the checked path finds it and words it
        return None
    return record, replay


def dump_record(record: Record, state: State) -> str:
    """The record's text: a header comment, then YAML with a stable key order."""
    return HEADER + dump_yaml(record.to_dict(state))


def parse_record(data: bytes, source: str) -> Record:
    """Parse and validate a record's bytes.

    Raises:
        InputError: not YAML, not a valid record (schema), or a ruleset out of range.
    """
    from .schemas import validate

    loaded = load_yaml(data, source=source, kind="record")
    validate(loaded, "record")
    try:
        return Record.from_dict(loaded.data)
    except ValueError as exc:
        raise InputError(f"{source}: {exc}") from None


def secret_path(record_path: str | os.PathLike) -> Path:
    """Where ``new`` keeps the seed: ``game.yaml`` -> ``game.secret.yaml``."""
    path = Path(record_path)
    stem = path.name[:-5] if path.name.endswith(".yaml") else path.name
    return path.with_name(stem + ".secret.yaml")


def dump_secret(game: str, seed: str) -> str:
    return ("# The seed of a Rebis game: keep it from the players until the game ends.\n"
            + dump_yaml({"game": game, "seed": seed}))


def check_seed(record: Record, seed: str) -> None:
    """Raises SeedError unless ``seed`` matches ``record.seed_sha256``."""
    if seed_commitment(seed) != record.seed_sha256:
        raise SeedError(f"the seed given does not match game {record.game}'s commitment "
                        f"(seed_sha256); it belongs to another game")


def find_seed(record_path: str | os.PathLike, record: Record) -> str:
    """The game's seed: ``REBIS_PBM_SEED`` if set, else the sidecar secret file.

    Raises:
        SeedError: no seed reachable, or the secret file is for another game.
        InputError: the secret file cannot be read.
    """
    env = os.environ.get(SEED_ENV)
    if env:
        return env
    path = secret_path(record_path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SeedError(f"no seed for game {record.game}: {path} does not exist and {SEED_ENV} is "
                        f"not set; the referee who created the game keeps it") from None
    except OSError as exc:
        raise SeedError(f"{path}: cannot be read ({exc.strerror})") from None
    loaded = load_yaml(data, source=str(path), kind="secret")
    doc = loaded.data
    if not isinstance(doc.get("seed"), str) or doc.get("game") != record.game:
        raise SeedError(f"{path} is not the secret of game {record.game} (it needs game: "
                        f"{record.game} and seed: TEXT)")
    return doc["seed"]
