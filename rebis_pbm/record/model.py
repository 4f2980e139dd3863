"""The game record in memory: its header, its entries and its digests' links (docs/formats.md).

The record holds the header (format, game id, resolved ruleset, players in seat order, the seed's
commitment, the header digest), the accepted moves in order, each with its keyed state digest and
its chain digest, and a status written for people. Everything else is replayed from the seed (R5)
by the engine (:class:`Replay`).

The record is public: it holds nothing a player may not know. A play that closes a shelf lays its
card face down (R8.1), so the record keeps that card sealed (:func:`~rebis_pbm.record.digests.seal_card`):
only the seed opens the seal (docs/views.md).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from ..engine import (POSITIVE, Move, Play, Ruleset, ShelfRef, State, score_table, winners)
from ..engine import events as ev
from ..engine.state import FINISHED, PLAY, RED_TOKEN
from ..errors import SeedError
from .digests import chain_digest, header_digest, seal_card, seed_commitment, state_digest

FORMAT = "rebis-pbm/2"  # the format new games are written in
FORMATS = ("rebis-pbm/1", "rebis-pbm/2")  # every format this version reads, verifies and appends to
# rebis-pbm/2 adds: the header's ``created``, ``deadline`` and ``missed`` (the missed-move
# policy), each move entry's ``at`` (when it was applied) and, for a move the referee made for a
# player, ``by: referee`` with its ``reason`` and ``bot``; and the referee's logged ``actions``
# (docs/formats.md). None of it is read by a replay: time never changes a game.
V1 = "rebis-pbm/1"
HEADER_EXTRA = ("created", "deadline", "missed")  # v2 header fields the header digest covers
STAMP_FIELDS = ("at", "by", "reason", "bot")       # v2 move-entry fields beside the move


def check_seed(record: "Record", seed: str) -> None:
    """Raises SeedError unless ``seed`` matches ``record.seed_sha256``."""
    if seed_commitment(seed) != record.seed_sha256:
        raise SeedError(f"the seed given does not match game {record.game}'s commitment "
                        f"(seed_sha256); it belongs to another game")


@dataclass(frozen=True)
class SealedMove:
    """A move whose play closed a shelf (R8.1), as the public record keeps it: every field of the
    move, but the card is replaced by its seal (:func:`seal_card`).

    Attributes: as :class:`rebis_pbm.engine.Move`, with ``owner`` and ``sign`` from its play, and
    ``seal`` (64 lower-case hex digits) instead of the card.
    """

    turn: int
    player: str
    golden_dust: int
    owner: str
    sign: str
    gold_token: ShelfRef | None
    seal: str

    @classmethod
    def of(cls, move: Move, seal: str) -> "SealedMove":
        """``move`` (a one-card play) with its card replaced by ``seal``."""
        return cls(move.turn, move.player, move.golden_dust, move.play.owner, move.play.sign,
                   move.gold_token, seal)

    def with_card(self, card: int) -> Move:
        """The move itself, once the seal is opened."""
        return Move(self.turn, self.player, self.golden_dust, Play((card,), self.owner, self.sign),
                    self.gold_token)

    def as_dict(self) -> dict:
        """The record's entry: a move's fields, ``play.sealed`` in place of ``play.cards``."""
        doc = self.with_card(0).as_dict()
        doc["play"] = {"sealed": self.seal, "shelf": self.owner, "sign": self.sign}
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
        format: the record's format (one of :data:`FORMATS`), fixed when the game was created:
            the header digest covers it, so a game keeps its format to the end.
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
    format: str = FORMAT
    written_status: dict | None = field(default=None, compare=False, hash=False)
    header_extra: dict = field(default_factory=dict, hash=False)
    stamps: tuple[dict, ...] = ()
    actions: tuple[dict, ...] = ()

    def __post_init__(self) -> None:
        if not self.stamps and self.moves:
            object.__setattr__(self, "stamps", ({},) * len(self.moves))
        if self.format == V1 and (self.header_extra or self.actions or any(self.stamps)):
            raise ValueError("a rebis-pbm/1 record has no deadline, times, referee's moves or "
                             "actions: those fields came with rebis-pbm/2")
        if self.header_sha256 is None:
            object.__setattr__(self, "header_sha256", self.computed_header_sha256())
        if len(self.links) != len(self.moves):
            raise ValueError(f"a record needs one link per move ({len(self.moves)} moves, "
                             f"{len(self.links)} links)")

    def computed_header_sha256(self) -> str:
        """The header digest of the header as it now is (compare with :attr:`header_sha256`)."""
        return header_digest(self.format, self.game, self.ruleset, self.players,
                             self.seed_sha256, self.header_extra)

    def prev_digest(self, index: int) -> str:
        """The ``prev`` of move ``index`` (0-based): the previous chain digest, or the header's."""
        return self.header_sha256 if index == 0 else self.links[index - 1].chain_sha256

    def entry(self, index: int) -> dict:
        """Move ``index``'s record entry without its ``chain_sha256``: what the chain digest covers."""
        return {**self.moves[index].as_dict(), **self.stamps[index],
                "state_hmac": self.links[index].state_hmac}

    def with_move(self, move: Move, state: State, seed: str, events,
                  stamp: dict | None = None) -> "Record":
        """The record with ``move`` appended; ``state`` and ``events`` are what ``apply_move``
        returned for it, ``seed`` the game's seed (for the keyed state digest, and for the seal of
        a closing play's card, which lies face down: R8.1, :func:`seal_card`)."""
        if closes_shelf(events):
            move = SealedMove.of(move, seal_card(seed, self.game, move.turn, move.play.cards[0]))
        stamp = dict(stamp or {}) if self.format != V1 else {}
        state_hmac = state_digest(state, seed)
        entry = {**move.as_dict(), **stamp, "state_hmac": state_hmac}
        link = Link(state_hmac, chain_digest(self.prev_digest(len(self.moves)), entry))
        return replace(self, moves=self.moves + (move,), links=self.links + (link,),
                       stamps=self.stamps + (stamp,))

    def with_action(self, action: dict) -> "Record":
        """The record with the referee's logged ``action`` appended (a rebis-pbm/2 record):
        ``action`` holds ``action`` (its kind), ``at`` and its own fields; ``after`` (the number
        of moves before it) and ``chain_sha256`` (chaining it to the action before it, or to
        the header) are added here, so that an edited action fails verification."""
        if self.format == V1:
            raise ValueError("a rebis-pbm/1 record cannot log the referee's actions")
        body = {"after": len(self.moves), **action}
        prev = self.actions[-1]["chain_sha256"] if self.actions else self.header_sha256
        return replace(self, actions=self.actions + (
            {**body, "chain_sha256": chain_digest(prev, body)},))

    def broken_action(self) -> int | None:
        """The index of the first logged action whose chain digest does not match, or None."""
        prev = self.header_sha256
        for index, action in enumerate(self.actions):
            body = {k: v for k, v in action.items() if k != "chain_sha256"}
            if chain_digest(prev, body) != action.get("chain_sha256"):
                return index
            prev = action["chain_sha256"]
        return None

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
            "format": self.format,
            "game": self.game,
            "ruleset": self.ruleset.as_dict(),
            "players": list(self.players),
            **self._address_fields(),
            **self.header_extra,
            "seed_sha256": self.seed_sha256,
        }
        if self.seed is not None:
            doc["seed"] = self.seed
        doc["header_sha256"] = self.header_sha256
        doc["moves"] = [{**self.entry(i), "chain_sha256": link.chain_sha256}
                        for i, link in enumerate(self.links)]
        if self.actions:
            doc["actions"] = [dict(a) for a in self.actions]
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
            format=str(data["format"]),
            written_status=data["status"],
            header_extra={k: data[k] for k in HEADER_EXTRA if k in data},
            stamps=tuple({k: m[k] for k in STAMP_FIELDS if k in m} for m in data["moves"]),
            actions=tuple(dict(a) for a in data.get("actions", ())),
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
