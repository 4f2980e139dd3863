"""The game record and its secret: what a game is on disk (docs/formats.md).

The record holds the header (format, game id, resolved ruleset, players in seat order, the seed's
commitment), the accepted moves in order, and a status written for people. Everything else is
replayed from the seed (R5) by the engine. The seed itself is kept out of the record, in a sidecar
``<name>.secret.yaml`` (mode 0600), or in the environment variable ``REBIS_PBM_SEED``.

The record is public: it holds nothing a player may not know. A play that closes a shelf lays its
card face down (R8.1), so the record keeps that card sealed (:func:`seal_card`): only the seed opens
the seal (docs/views.md).
"""

from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import dataclass, field
from pathlib import Path

from .engine import (POSITIVE, IllegalMove, Move, Play, Ruleset, ShelfRef, State, apply_move,
                     score_table, setup, winners)
from .engine import events as ev
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


SEAL_DOMAIN = "rebis-pbm/sealed-card/v1"


def seal_card(seed: str, game: str, turn: int, card: int) -> str:
    """The seal that stands for a closing play's card in the public record (R8.1).

    HMAC-SHA256 keyed by the seed's UTF-8 bytes, over the UTF-8 text
    ``rebis-pbm/sealed-card/v1`` LF game id LF turn LF card (numbers in decimal), as lower-case
    hex. Without the seed a seal tells nothing about its card; with the seed (the referee during the
    game, anyone once the seed is revealed) the card is the deck's number whose seal matches.

    >>> seal_card("example", "g", 3, 7)[:16]
    '4acae1ba089fe4ae'
    """
    text = f"{SEAL_DOMAIN}\n{game}\n{turn}\n{card}".encode("utf-8")
    return hmac.new(seed.encode("utf-8"), text, hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class SealedMove:
    """A move whose play closed a shelf (R8.1), as the public record keeps it: every field of the
    move, but the card is replaced by its seal (:func:`seal_card`).

    Attributes: as :class:`rebis_pbm.engine.Move`, with ``shelf`` and ``sign`` from its play, and
    ``seal`` (64 lower-case hex digits) instead of the card.
    """

    turn: int
    player: str
    golden_dust: int
    shelf: str
    sign: str
    gold_token: ShelfRef | None
    seal: str

    @classmethod
    def of(cls, move: Move, seal: str) -> "SealedMove":
        """``move`` (a one-card play) with its card replaced by ``seal``."""
        return cls(move.turn, move.player, move.golden_dust, move.play.shelf, move.play.sign,
                   move.gold_token, seal)

    def with_card(self, card: int) -> Move:
        """The move itself, once the seal is opened."""
        return Move(self.turn, self.player, self.golden_dust, Play((card,), self.shelf, self.sign),
                    self.gold_token)

    def as_dict(self) -> dict:
        """The record's entry: a move's fields, ``play.sealed`` in place of ``play.cards``."""
        doc = self.with_card(0).as_dict()
        doc["play"] = {"sealed": self.seal, "shelf": self.shelf, "sign": self.sign}
        return doc

    def opened(self, seed: str, game: str, ruleset: Ruleset) -> Move | None:
        """The move with its card, found by trying every number of the deck; None when no number
        matches (the record was edited, or ``seed`` is not the game's)."""
        for card in sorted(set(ruleset.cards)):
            if hmac.compare_digest(seal_card(seed, game, self.turn, card), self.seal):
                return self.with_card(card)
        return None


def entry_from_dict(doc: dict) -> Move | SealedMove:
    """One schema-valid record entry: a :class:`Move`, or a :class:`SealedMove` when its play is
    sealed."""
    play = doc.get("play")
    if play is None or "sealed" not in play:
        return Move.from_dict(doc)
    gold = doc.get("gold_token")
    return SealedMove(doc["turn"], doc["player"], doc.get("golden_dust", 0), play["shelf"],
                      play.get("sign", POSITIVE),
                      None if gold is None else ShelfRef(gold["player"], gold["shelf"]),
                      play["sealed"])


@dataclass(frozen=True)
class Record:
    """A game record in memory.

    Attributes:
        game: the game id.
        ruleset: the resolved ruleset (R1-R4).
        players: names in seat order (R5).
        seed_sha256: the seed's commitment (see :func:`seed_commitment`).
        moves: the accepted moves, in order, as the public record shows them: a closing play is a
            :class:`SealedMove` (see :func:`record_entry`).
    """

    game: str
    ruleset: Ruleset
    players: tuple[str, ...]
    seed_sha256: str
    moves: tuple[Move | SealedMove, ...] = ()

    def with_move(self, entry: Move | SealedMove) -> "Record":
        """The record with ``entry`` (from :func:`record_entry`) appended."""
        return Record(self.game, self.ruleset, self.players, self.seed_sha256, self.moves + (entry,))

    def holds(self, move: Move) -> bool:
        """Whether the recorded move of ``move.turn`` is ``move``, as far as the public record
        shows: a sealed card is not compared, since telling whoever resends a closing play whether
        its card is the one played would open the seal for them (R8.1)."""
        if not 1 <= move.turn <= len(self.moves):
            return False
        entry = self.moves[move.turn - 1]
        if isinstance(entry, SealedMove):
            return (move.play is not None and len(move.play.cards) == 1
                    and SealedMove.of(move, entry.seal) == entry)
        return entry == move

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
        """Build a record from a schema-valid document.

        Raises:
            ValueError: the ruleset is out of range.
        """
        return cls(
            game=data["game"],
            ruleset=Ruleset.from_dict(data["ruleset"]),
            players=tuple(data["players"]),
            seed_sha256=data["seed_sha256"],
            moves=tuple(entry_from_dict(m) for m in data["moves"]),
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


def closes_shelf(events) -> bool:
    """Whether a move's events include closing a shelf (R8.1)."""
    return any(isinstance(e, ev.Closed) for e in events)


def record_entry(record: Record, seed: str, move: Move, events) -> Move | SealedMove:
    """``move`` as the public record keeps it: sealed when its card closed a shelf and lies face
    down (R8.1; ``events`` are the move's events from ``apply_move``), else as it is."""
    if closes_shelf(events):
        return SealedMove.of(move, seal_card(seed, record.game, move.turn, move.play.cards[0]))
    return move


def replay_record(record: Record, seed: str) -> Replay:
    """Deal from ``seed`` and play every recorded move, opening the sealed ones.

    Raises:
        SeedError: ``seed`` does not match the record's commitment.
        CorruptRecord: a recorded move is illegal at its point, a seal matches no card, or a
            closing play is not sealed (or a sealed one does not close); the message names the turn.
    """
    check_seed(record, seed)
    state, setup_events = setup(record.ruleset, record.players, seed)
    history = []
    for index, entry in enumerate(record.moves):
        where = f"recorded move {index + 1} (turn {entry.turn}, {entry.player})"
        sealed = isinstance(entry, SealedMove)
        move = entry.opened(seed, record.game, record.ruleset) if sealed else entry
        if move is None:
            raise CorruptRecord(f"{where}: its sealed card matches no card of the deck; the record "
                                f"was edited")
        try:
            state, events = apply_move(state, move)
        except IllegalMove as exc:
            raise CorruptRecord(f"{where} does not replay: {exc.message}") from None
        if closes_shelf(events) != sealed:
            raise CorruptRecord(f"{where} " + (
                "closes a shelf but shows its card; the card of a closing play lies face down "
                "and the record keeps it sealed (R8.1)" if not sealed else
                "is sealed but does not close a shelf; only a closing play's card is sealed "
                "(R8.1)"))
        history.append((move, events))
    return Replay(state, setup_events, tuple(history))


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
