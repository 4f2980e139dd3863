"""The game record and its secret: what a game is on disk (docs/formats.md, docs/audit.md).

The record holds the header (format, game id, resolved ruleset, players in seat order, the seed's
commitment, the header digest), the accepted moves in order, each with its keyed state digest and
its chain digest, and a status written for people. Everything else is replayed from the seed (R5)
by the engine. Until the game ends the seed is kept out of the record, in a sidecar
``<name>.secret.yaml`` (mode 0600) or in the environment variable ``REBIS_PBM_SEED``; the last
move's ``apply`` (or ``reveal`` for an abandoned game) writes it into the record, so that anyone
can then check the whole game (``rebis-pbm verify``).

The record is public: it holds nothing a player may not know. A play that closes a shelf lays its
card face down (R8.1), so the record keeps that card sealed (:func:`seal_card`): only the seed opens
the seal (docs/views.md).

Every read of a record checks it (:func:`read_game`): :func:`walk` goes through it once, in order,
checking every digest and replaying every move, and stops at the first :class:`Problem`;
:func:`check_status` compares its written status with the one the moves give. ``verify``
(:mod:`rebis_pbm.audit`) reports the same checks to people.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from .digests import chain_digest, header_digest, state_digest
from .engine import (POSITIVE, IllegalMove, Move, Play, Ruleset, ShelfRef, State, apply_move,
                     score_table, setup, winners)
from .engine import events as ev
from .engine.state import FINISHED, PLAY, RED_TOKEN
from .fileio import read_input
from .yamlio import InputError, clip, dump_yaml, load_yaml

FORMAT = "rebis-pbm/1"
SEED_ENV = "REBIS_PBM_SEED"
HEADER = ("# Rebis game record, written by rebis-pbm: do not edit by hand.\n"
          "# Players: see your view; referee: rebis-pbm apply THIS_FILE MOVE.yaml\n")


class SeedError(ValueError):
    """The seed cannot be found, or does not match the record's commitment."""


class CorruptRecord(ValueError):
    """The record parses but fails verification: a digest does not match, a move is out of turn
    or illegal at its point, the revealed seed is not the committed one...

    Attributes:
        problem: the first problem found (a :class:`Problem`: which turn and player, what was
            expected, what was found), or None.
    """

    def __init__(self, message: str, problem=None):
        super().__init__(message)
        self.problem = problem


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
    sealed (values taken with ``int`` and ``str`` as in :meth:`Move.from_dict`)."""
    play = doc.get("play")
    if play is None or "sealed" not in play:
        return Move.from_dict(doc)
    gold = doc.get("gold_token")
    return SealedMove(int(doc["turn"]), str(doc["player"]), int(doc.get("golden_dust", 0)),
                      str(play["shelf"]), str(play.get("sign", POSITIVE)),
                      None if gold is None else ShelfRef(str(gold["player"]), int(gold["shelf"])),
                      str(play["sealed"]))


class Link(NamedTuple):
    """The digests a move's record entry carries (docs/audit.md).

    Attributes:
        state_hmac: HMAC-SHA256 keyed by the seed of the full state after the move (hex).
        chain_sha256: SHA-256 chaining the entry to everything before it (hex).
    """

    state_hmac: str
    chain_sha256: str


@dataclass(frozen=True)
class Record:
    """A game record in memory.

    Attributes:
        game: the game id.
        ruleset: the resolved ruleset (R1-R4).
        players: names in seat order (R5).
        seed_sha256: the seed's commitment (see :func:`seed_commitment`).
        moves: the accepted moves, in order, as the public record shows them: a play that closed a
            shelf is a :class:`SealedMove` (see :meth:`with_move`).
        links: each move's digests, in the same order (as read from the file, or as computed by
            :meth:`with_move`).
        header_sha256: the header digest, the chain's first link; computed when not given (a new
            game), kept as read otherwise (so that an edited header shows).
        seed: the seed once revealed (game over, or abandoned by ``reveal``); None before.
        written_status: the ``status`` as read from a file (checked by :func:`read_game`), None
            for a record built in memory.
        addresses: player name -> e-mail address, for the players who gave one (docs/mail.md);
            the mail transport writes to them and ``apply --as`` checks a move's sender with
            them. Players without one play by files.
        public_addresses: whether views show the addresses (``new --public-addresses``).
    """

    game: str
    ruleset: Ruleset
    players: tuple[str, ...]
    seed_sha256: str
    moves: tuple[Move | SealedMove, ...] = ()
    links: tuple[Link, ...] = ()
    header_sha256: str | None = None
    seed: str | None = None
    addresses: dict[str, str] = field(default_factory=dict, hash=False)
    public_addresses: bool = False
    written_status: dict | None = field(default=None, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.header_sha256 is None:
            object.__setattr__(self, "header_sha256", self.computed_header_sha256())
        if len(self.links) != len(self.moves):
            raise ValueError(f"a record needs one link per move ({len(self.moves)} moves, "
                             f"{len(self.links)} links)")

    def computed_header_sha256(self) -> str:
        """The header digest of the header as it now is (compare with :attr:`header_sha256`)."""
        return header_digest(FORMAT, self.game, self.ruleset, self.players, self.seed_sha256)

    def prev_digest(self, index: int) -> str:
        """The ``prev`` of move ``index`` (0-based): the previous chain digest, or the header's."""
        return self.header_sha256 if index == 0 else self.links[index - 1].chain_sha256

    def entry(self, index: int) -> dict:
        """Move ``index``'s record entry without its ``chain_sha256``: what the chain digest covers."""
        return {**self.moves[index].as_dict(), "state_hmac": self.links[index].state_hmac}

    def with_move(self, move: Move, state: State, seed: str, events) -> "Record":
        """The record with ``move`` appended; ``state`` and ``events`` are what ``apply_move``
        returned for it, ``seed`` the game's seed (for the keyed state digest, and for the seal of
        a closing play's card, which lies face down: R8.1, :func:`seal_card`)."""
        if closes_shelf(events):
            move = SealedMove.of(move, seal_card(seed, self.game, move.turn, move.play.cards[0]))
        state_hmac = state_digest(state, seed)
        entry = {**move.as_dict(), "state_hmac": state_hmac}
        link = Link(state_hmac, chain_digest(self.prev_digest(len(self.moves)), entry))
        return replace(self, moves=self.moves + (move,), links=self.links + (link,))

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

    def revealed(self, seed: str) -> "Record":
        """The record with its seed revealed.

        Raises:
            SeedError: ``seed`` does not match the commitment.
        """
        check_seed(self, seed)
        return replace(self, seed=seed)

    def abandoned(self, state: State) -> bool:
        """Whether the game was abandoned: its seed revealed (``reveal``) before the end.
        ``state`` is the state after the record's last move. No move can be played any more."""
        return self.seed is not None and state.phase != FINISHED

    def status(self, state: State) -> dict:
        """The ``status`` to write with this record; ``state`` is the state after its last move.
        A seed revealed before the end marks the game abandoned."""
        result = status(state)
        if self.abandoned(state):
            result["abandoned"] = True
        return result

    def player_at(self, address: str) -> str | None:
        """The player registered with e-mail ``address`` (compared ignoring case), or None."""
        wanted = address.strip().casefold()
        for player, registered in self.addresses.items():
            if registered.casefold() == wanted:
                return player
        return None

    def shown_addresses(self) -> dict[str, str]:
        """The addresses views may show: all of them with ``public_addresses``, else none."""
        return dict(self.addresses) if self.public_addresses else {}

    def to_dict(self, state: State) -> dict:
        """The record as written, keys in file order; ``state`` is the replayed state after the
        last move (it gives the status)."""
        doc: dict = {
            "format": FORMAT,
            "game": self.game,
            "ruleset": self.ruleset.as_dict(),
            "players": list(self.players),
            **self._address_fields(),
            "seed_sha256": self.seed_sha256,
        }
        if self.seed is not None:
            doc["seed"] = self.seed
        doc["header_sha256"] = self.header_sha256
        doc["moves"] = [{**self.entry(i), "chain_sha256": link.chain_sha256}
                        for i, link in enumerate(self.links)]
        doc["status"] = self.status(state)
        return doc

    def _address_fields(self) -> dict:
        # Optional fields, written only when used, so that file-only records stay as they were.
        fields: dict = {}
        if self.addresses:
            fields["addresses"] = {p: self.addresses[p] for p in self.players
                                   if p in self.addresses}
        if self.public_addresses:
            fields["public_addresses"] = True
        return fields

    @classmethod
    def from_dict(cls, data: dict) -> "Record":
        """Build a record from a schema-valid document (digests kept as read). Names, digests
        and the seed are taken with ``str``, numbers with ``int``, as :meth:`Move.from_dict`
        does: a no-op on a valid document, and a document of the wrong types then no longer
        matches :meth:`to_dict` (which :func:`read_game` relies on).

        Raises:
            ValueError: the ruleset is out of range, or an address is given for a name that is
                not a player.
        """
        addresses = dict(data.get("addresses", {}))
        strangers = [name for name in addresses if name not in data["players"]]
        if strangers:
            raise ValueError(f"addresses: {', '.join(strangers)} is not a player of this game "
                             f"(players: {', '.join(data['players'])})")
        return cls(
            game=str(data["game"]),
            ruleset=Ruleset.from_dict(data["ruleset"]),
            players=tuple(str(p) for p in data["players"]),
            seed_sha256=str(data["seed_sha256"]),
            moves=tuple(entry_from_dict(m) for m in data["moves"]),
            links=tuple(Link(str(m["state_hmac"]), str(m["chain_sha256"])) for m in data["moves"]),
            header_sha256=str(data["header_sha256"]),
            seed=None if data.get("seed") is None else str(data["seed"]),
            addresses=addresses,
            public_addresses=data.get("public_addresses", False),
            written_status=data["status"],
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


class Replay(NamedTuple):
    """A record played through from its seed.

    Attributes:
        state: the state after the last recorded move.
        setup_events: the events of the deal and of turn 1's draw.
        history: for each recorded move, ``(move, events)``.
    """

    state: State
    setup_events: tuple
    history: tuple[tuple[Move, tuple], ...] = ()


def closes_shelf(events) -> bool:
    """Whether a move's events include closing a shelf (R8.1)."""
    return any(isinstance(e, ev.Closed) for e in events)


# ------------------------------------------------------------------------- the walk

# Stable problem codes (Problem.code), in the order the checks run.
CODES = (
    "unreadable",      # the file is not a YAML mapping (cut short, damaged)
    "schema",          # the document is not a valid record (field missing, wrong form)
    "header_digest",   # game id, ruleset, players or seed commitment edited
    "seed_mismatch",   # the seed revealed in the record is not the committed one
    "wrong_seed",      # the seed given from outside (secret file, env) is not the committed one
    "setup",           # the ruleset cannot deal this game
    "after_end",       # a move after the red token, the game's last move (R12)
    "turn_order",      # a move missing, repeated or out of order
    "seat_order",      # a turn played by the wrong seat (R5, R6)
    "chain_digest",    # the entry, or one before it, edited
    "seal",            # a closing play's sealed card opens to no card of the deck (R8.1)
    "illegal_move",    # the move breaks the rules at its point (R6-R12)
    "state_digest",    # the state after the move is not the one the referee recorded
    "sealing",         # a closing play shows its card, or a play that does not close is sealed
    "not_revealed",    # the game is over but the record does not reveal its seed
    "status",          # the status does not follow from the moves
)


class Problem(NamedTuple):
    """The first thing wrong with a record.

    Attributes:
        code: one of :data:`CODES`.
        message: what is wrong, in plain words (no hidden card: hands and the deck never appear).
        turn: the move the problem is at (its place in the record: move N is turn N), or None for
            the header; for the status, the last move.
        player: the player the entry there names (None for the header or the status).
        expected: what the record should hold there; found: what it holds.
    """

    code: str
    message: str
    turn: int | None = None
    player: str | None = None
    expected: str | None = None
    found: str | None = None

    @property
    def where(self) -> str:
        """``turn 7 (alice)``, ``the status after turn 37`` or ``the record's header``."""
        if self.code in ("status", "not_revealed"):
            return "the status" + (f" after turn {self.turn}" if self.turn else "")
        if self.turn is None:
            return "the record's header"
        return f"turn {self.turn}" + (f" ({self.player})" if self.player else "")

    def sentence(self) -> str:
        """One sentence: where, what, expected and found."""
        text = f"{self.where}: {self.message}"
        if self.expected is not None or self.found is not None:
            text += f" (expected {self.expected}; found {self.found})"
        return text

    def as_dict(self) -> dict:
        return {"code": self.code, "turn": self.turn, "player": self.player,
                "message": self.message, "expected": self.expected, "found": self.found}


class Walk(NamedTuple):
    """The result of :func:`walk`.

    Attributes:
        problem: the first problem, or None.
        replay: the replayed game when the seed was known and every move passed; else None.
        moves: how many moves passed every check before the problem (all of them if none).
    """

    problem: Problem | None
    replay: Replay | None
    moves: int


def _short(move) -> str:
    """A move in one line, as the record writes it (no hidden card: only what the mover played)."""
    return json.dumps(move.as_dict(), separators=(", ", ": "))


def _places_red_token(entry) -> bool:
    """Whether a record entry is the red token's placement (R12); every other entry is a turn's
    play, whose mover follows the seat order."""
    return getattr(entry, "red_token", None) is not None


def check_header(record: Record) -> Problem | None:
    """The header digest (the chain's first link) against the header as it now is: an edited game
    id, ruleset, seat order or seed commitment shows here, before anything relies on them."""
    if record.computed_header_sha256() == record.header_sha256:
        return None
    return Problem(
        "header_digest", "the header (game id, ruleset, players in seat order, seed "
        "commitment) does not match its header_sha256: it was edited after the game was "
        "created", expected=f"header_sha256 {record.header_sha256}",
        found=f"header_sha256 {record.computed_header_sha256()}")


def walk(record: Record, seed: str | None = None) -> Walk:
    """Check ``record`` from its header to its last move; stop at the first problem.

    Without a seed (none given and none revealed): header digest, turn numbers, seat order and
    chain digests. With one (``seed``, else the record's revealed seed): also the seed against the
    commitment, each sealed card (it must open), each move's legality by replaying it (R5-R12),
    each keyed state digest, and that a move's card is sealed exactly when it closes a shelf
    (R8.1, docs/views.md).

    Returns:
        a :class:`Walk`. Never raises for a bad record; the problem says what is wrong.
    """
    problem = check_header(record)
    if problem is not None:
        return Walk(problem, None, 0)
    if record.seed is not None and seed_commitment(record.seed) != record.seed_sha256:
        return Walk(Problem(
            "seed_mismatch", "the seed revealed in the record does not match the commitment made "
            "when the game was created (seed_sha256): it does not deal the game that was played",
            expected=f"a seed whose SHA-256 is {record.seed_sha256}",
            found=f"a seed whose SHA-256 is {seed_commitment(record.seed)}"), None, 0)
    if seed is not None and seed != record.seed and seed_commitment(seed) != record.seed_sha256:
        return Walk(Problem(
            "wrong_seed", "the seed given does not match the record's commitment (seed_sha256): "
            "it is another game's seed, or the record's commitment was replaced",
            expected=f"a seed whose SHA-256 is {record.seed_sha256}",
            found=f"a seed whose SHA-256 is {seed_commitment(seed)}"), None, 0)
    key = seed if seed is not None else record.seed
    state = setup_events = None
    history = []
    if key is not None:
        try:
            state, setup_events = setup(record.ruleset, record.players, key)
        except ValueError as exc:
            return Walk(Problem("setup", f"the game cannot be dealt: {exc}"), None, 0)
    n = len(record.players)
    for index, entry in enumerate(record.moves):
        turn = index + 1
        at = {"turn": turn, "player": entry.player}
        if index and _places_red_token(record.moves[index - 1]):
            return Walk(Problem(
                "after_end", "a move follows the red token, which is the game's last move (R12)",
                expected="no move after the red token", found=_short(entry), **at), None, index)
        if entry.turn != turn:
            return Walk(Problem(
                "turn_order", f"move {turn} of the record says turn {entry.turn}: a move is "
                "missing, repeated or out of order", expected=f"turn {turn}",
                found=f"turn {entry.turn}", **at), None, index)
        if not _places_red_token(entry) and entry.player != record.players[index % n]:
            return Walk(Problem(
                "seat_order", "this turn is not played in seat order (R5, R6)",
                expected=f"{record.players[index % n]} to play turn {turn}",
                found=f"{entry.player} playing it", **at), None, index)
        computed = chain_digest(record.prev_digest(index), record.entry(index))
        if computed != record.links[index].chain_sha256:
            return Walk(Problem(
                "chain_digest", "the entry does not match its chain digest: it, or an entry "
                "before it, was edited after it was recorded",
                expected=f"chain_sha256 {record.links[index].chain_sha256}",
                found=f"chain_sha256 {computed}", **at), None, index)
        if key is None:
            continue
        sealed = isinstance(entry, SealedMove)
        move = entry.opened(key, record.game, record.ruleset) if sealed else entry
        if move is None:
            return Walk(Problem(
                "seal", "the sealed card of this closing play opens to no card of the deck: the "
                "entry was edited", expected="the seal of one of the deck's numbers (R8.1)",
                found=f"sealed {entry.seal}", **at), None, index)
        try:
            state, events = apply_move(state, move)
        except IllegalMove as exc:
            # The entry as written, not the opened move: a problem report names no hidden card.
            return Walk(Problem(
                "illegal_move", f"the move breaks the rules: {exc.message}",
                expected="a legal move", found=_short(entry), **at), None, index)
        computed = state_digest(state, key)
        if computed != record.links[index].state_hmac:
            return Walk(Problem(
                "state_digest", "the state after this move is not the one the referee recorded "
                "(keyed digest state_hmac): the deal or a move differs from the game played",
                expected=f"state_hmac {record.links[index].state_hmac}",
                found=f"state_hmac {computed}", **at), None, index)
        if closes_shelf(events) != sealed:
            return Walk(Problem(
                "sealing", "this play closes a shelf but the record shows its card, which lies "
                "face down (R8.1)" if not sealed else "this play is sealed but does not close a "
                "shelf; only a closing play's card is sealed (R8.1)",
                expected="play.sealed" if not sealed else "play.cards",
                found="play.cards" if not sealed else "play.sealed", **at), None, index)
        history.append((move, events))
    replay = None if key is None else Replay(state, setup_events, tuple(history))
    return Walk(None, replay, len(record.moves))


# ------------------------------------------------------------------------------- the status

_STATUS_FIELDS = ("phase", "turn", "player", "end", "scores", "winners", "abandoned")
_ABSENT = object()  # a status field that is not there (None is a value: no player to move)


def _differs(expected: dict, found: dict) -> tuple[str, str, str] | None:
    """The first field where two statuses differ: (field, expected text, found text)."""
    def show(value):
        return "absent" if value is _ABSENT else json.dumps(value, separators=(", ", ": "))

    keys = [k for k in _STATUS_FIELDS if k in expected or k in found]
    keys += sorted(k for k in set(expected) | set(found) if k not in _STATUS_FIELDS)
    for key in keys:
        want, have = expected.get(key, _ABSENT), found.get(key, _ABSENT)
        if isinstance(want, dict) and isinstance(have, dict) and want != have:
            for sub in list(want) + [k for k in have if k not in want]:
                if want.get(sub, _ABSENT) != have.get(sub, _ABSENT):
                    return f"{key}.{sub}", show(want.get(sub, _ABSENT)), show(have.get(sub, _ABSENT))
        if want != have:
            return key, show(want), show(have)
    return None


def check_status(record: Record, found: dict, replay: Replay | None) -> Problem | None:
    """Check the record's status (``found``, as written) against the moves.

    With the replay: the whole status must be the one the final state gives (phase, turn and
    player to move, or end, scores and winners; ``abandoned`` when the seed was revealed early),
    and a finished game must reveal its seed. Without: a game whose record does not reveal its
    seed cannot be over, and the turn (and, in phase play, the player to move) must follow from the
    number of moves and the seat order.
    """
    last = len(record.moves) or None
    if replay is not None:
        if replay.state.phase == FINISHED and record.seed is None:
            return Problem("not_revealed", "the game is over but the record does not reveal its "
                           "seed (the last move's apply writes it)", turn=last,
                           expected="seed: the game's seed", found="no seed")
        expected = record.status(replay.state)
    else:
        ended = bool(record.moves) and _places_red_token(record.moves[-1])  # R12: the last move
        if found.get("phase") == FINISHED or ended:
            return Problem("not_revealed", "the status says the game is over, but the record does "
                           "not reveal its seed (the last move's apply writes it)", turn=last,
                           expected="seed: the game's seed", found="no seed")
        count = len(record.moves)
        expected = {"phase": found.get("phase"), "turn": count + 1}
        if found.get("phase") == PLAY:
            expected["player"] = record.players[count % len(record.players)]
        elif found.get("phase") == RED_TOKEN and found.get("player") in record.players:
            expected["player"] = found["player"]  # the holder depends on hidden hands (R12)
    diff = _differs(expected, found)
    if diff is None:
        return None
    name, want, have = diff
    return Problem("status", f"the status does not follow from the moves (field status.{name})",
                   turn=last, expected=want, found=have)


def replay_record(record: Record, seed: str) -> Replay:
    """Deal from ``seed`` and play every recorded move, checking each move's digests as it goes
    (the whole check is :func:`walk`).

    Raises:
        SeedError: ``seed`` does not match the record's commitment.
        CorruptRecord: the header or a move fails its digests, a move is out of turn or illegal at
            its point, a seal opens to no card, a closing play shows its card (the message names
            the turn), or a revealed seed is not the committed one.
    """
    result = walk(record, seed)
    if result.problem is not None:
        if result.problem.code == "wrong_seed":
            check_seed(record, seed)  # raises SeedError: the seed belongs to another game
        raise CorruptRecord(result.problem.sentence(), result.problem)
    return result.replay


def read_game(data: bytes, source: str, seed_for) -> tuple[Record, Replay, str]:
    """Parse, check and replay a record's bytes: ``(record, replay, seed)``. ``seed_for(record)``
    returns the seed (e.g. ``lambda r: find_seed(path, r)``).

    A record as rebis-pbm writes it is accepted without the JSON Schema, whose import and checks
    cost more than all the rest of a command: when the strict YAML reader reads it, its integers
    are plainly spelled, it holds no e-mail addresses (their format is the schema's to check),
    the game id and every name have the schema's form, the record replays
    (:func:`replay_record`: every digest and every move checked) and its data is exactly, types
    included, what the writer gives for it (:meth:`Record.to_dict` of the replayed state), then
    the schema holds too (and so does the written status). Anything else goes through
    :func:`parse_record` (the schema, with a positioned message), the header digest before the
    seed is looked up, :func:`replay_record`, and the written status against the one the moves
    give: the outcome is the same.

    Raises:
        InputError, SeedError, CorruptRecord: as :func:`parse_record`, ``seed_for`` and
            :func:`replay_record`; CorruptRecord also for an edited header or status.
    """
    found = _read_as_written(data, source, seed_for)
    return found if found is not None else read_checked(data, source, seed_for)


def read_checked(data: bytes, source: str, seed_for) -> tuple[Record, Replay, str]:
    """The checked path of :func:`read_game`, for any record: the schema, the header digest
    before ``seed_for`` relies on the game id, the replay with every digest, and the written
    status against the one the moves give.

    Raises:
        InputError, SeedError, CorruptRecord: as :func:`read_game`.
    """
    record = parse_record(data, source)
    problem = check_header(record)  # before seed_for relies on the game id
    if problem is None:
        seed = seed_for(record)
        replay = replay_record(record, seed)
        problem = check_status(record, record.written_status, replay)
        if problem is None:
            return record, replay, seed
    raise CorruptRecord(problem.sentence(), problem)


def _read_as_written(data: bytes, source: str, seed_for) -> tuple[Record, Replay, str] | None:
    """The fast path of :func:`read_game`; None sends the record down the checked path."""
    from .schemas import check_integer_spelling, defined_pattern

    try:
        loaded = load_yaml(data, source=source, kind="record")
        check_integer_spelling(loaded)
        doc = loaded.data
        if "addresses" in doc:
            return None  # e-mail addresses have a format only the schema checks
        record = Record.from_dict(doc)
        if not defined_pattern("move", "game").fullmatch(record.game):
            return None
        player = defined_pattern("move", "player")
        if not all(player.fullmatch(name) for name in record.players):
            return None  # names become file names: never trust them unchecked
        seed = seed_for(record)
        replay = replay_record(record, seed)
        if json.dumps(doc) != json.dumps(record.to_dict(replay.state)):
            return None  # json tells 1 from true and "1", and keeps key order
    except Exception:  # whatever is wrong, the checked path finds it and words it
        return None
    return record, replay, seed


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
        raise InputError(str(exc), source=source) from None


def secret_path(record_path: str | os.PathLike) -> str:
    """Where ``new`` keeps the seed: ``game.yaml`` -> ``game.secret.yaml``."""
    folder, name = os.path.split(os.fspath(record_path))
    stem = name[:-5] if name.endswith(".yaml") else name
    return os.path.join(folder, stem + ".secret.yaml")


def dump_secret(game: str, seed: str) -> str:
    return ("# The seed of a Rebis game: keep it from the players until the game ends.\n"
            + dump_yaml({"game": game, "seed": seed}))


def check_seed(record: Record, seed: str) -> None:
    """Raises SeedError unless ``seed`` matches ``record.seed_sha256``."""
    if seed_commitment(seed) != record.seed_sha256:
        raise SeedError(f"the seed given does not match game {record.game}'s commitment "
                        f"(seed_sha256); it belongs to another game")


def find_seed(record_path: str | os.PathLike, record: Record) -> str:
    """The game's seed: revealed in the record, else ``REBIS_PBM_SEED`` if set, else the sidecar
    secret file.

    Raises:
        SeedError: no seed reachable, or the secret file is for another game.
        InputError: the secret file cannot be read.
    """
    if record.seed is not None:
        return record.seed
    env = os.environ.get(SEED_ENV)
    if env:
        _check_seed_from(record, env, SEED_ENV, f"unset it, or set it to game {record.game}'s seed")
        return env
    path = secret_path(record_path)
    if not os.path.exists(path):
        raise SeedError(f"no seed for game {record.game}: {path} does not exist and {SEED_ENV} is "
                        f"not set; the referee who created the game keeps it")
    seed = read_secret(path, record)
    _check_seed_from(record, seed, path, "restore the secret file written by rebis-pbm new")
    return seed


def _check_seed_from(record: Record, seed: str, where: str, fix: str) -> None:
    """SeedError naming where ``seed`` came from unless it matches the record's commitment."""
    if seed_commitment(seed) != record.seed_sha256:
        raise SeedError(f"the seed in {where} is not game {record.game}'s: it does not match the "
                        f"record's commitment (seed_sha256); {fix}")


def read_secret(path: str | os.PathLike, record: Record) -> str:
    """The seed in a secret file (``game: ID`` and ``seed: TEXT``) of ``record``'s game.

    Raises:
        SeedError: the file is not the secret of this game.
        InputError: the file cannot be read (worded like every file the tool reads, by
            :func:`rebis_pbm.fileio.read_input`), or is not YAML (one sentence with its position).
    """
    path = os.fspath(path)
    data, _ = read_input(path, kind="secret")
    loaded = load_yaml(data, source=path, kind="secret")
    doc = loaded.data
    if not isinstance(doc.get("seed"), str) or not doc["seed"] or doc.get("game") != record.game:
        other = doc.get("game")
        whose = (f"; it is the secret of game {clip(other)}"
                 if isinstance(other, str) and other != record.game else "")
        raise SeedError(f"{path} is not the secret of game {record.game} (it needs game: "
                        f"{record.game} and seed: TEXT){whose}")
    return doc["seed"]
