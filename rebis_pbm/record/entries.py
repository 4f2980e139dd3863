"""The record's entries: a move as the public record keeps it (a closing play's card sealed,
R8.1), a join of a fair deal with its signed proof, and each entry's digests (docs/formats.md).
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from typing import NamedTuple

from rebis_pbm.engine import POSITIVE, Move, Play, Ruleset, ShelfRef
from rebis_pbm.formats.yaml_reader import YamlValue
from rebis_pbm.record.digests import seal_card

Document = dict[str, YamlValue]  # an entry as read or written: raw YAML (the record schema)


class MovesRead(NamedTuple):
    """The ``moves`` of a record file as read (issue 31): ``text``, the lines of its list (from
    the first ``- `` to the line before the next key), and ``entries``, the data they hold.
    :func:`~rebis_pbm.record.codec.dump_record` copies ``text`` for a record whose first
    entries are still ``entries`` instead of writing every move again: a signed move's text is
    three times an unsigned one's, and writing it made a signed ``apply`` grow with the game."""

    text: str
    entries: list[Document]


class SealedMove(NamedTuple):
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
    def of(cls, move: Move, seal: str) -> SealedMove:
        """``move`` (a one-card play) with its card replaced by ``seal``."""
        assert move.play is not None  # a play closes a shelf, never a red token's move
        return cls(move.turn, move.player, move.golden_dust, move.play.owner, move.play.sign,
                   move.gold_token, seal)

    def with_card(self, card: int) -> Move:
        """The move itself, once the seal is opened."""
        return Move(self.turn, self.player, self.golden_dust, Play((card,), self.owner, self.sign),
                    self.gold_token)

    def as_dict(self) -> Document:
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


def entry_from_dict(doc: Document) -> Move | SealedMove:
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


class Proof(NamedTuple):
    """A rebis-pbm/2 move's signature, as the record keeps it (docs/audit.md, "Signed moves").

    Attributes:
        signature: the armoured SSH signature (``ssh-keygen -Y sign -n rebis-pbm``) over the
            exact bytes of the move file; ``""`` in a sealed proof (sealed with the bytes).
        signed: those bytes as text, for a move whose card is public; None when sealed.
        sealed: for a closing play (its file names the face-down card, R8.1): those bytes and
            their signature sealed under a key derived from the game's secret
            (:func:`~rebis_pbm.crypto.signatures.seal_signed`), base64; None otherwise.
    """

    signature: str
    signed: str | None = None
    sealed: str | None = None

    def as_dict(self) -> Document:
        if self.sealed is not None:  # no signature in clear: it would test guesses of the card
            return {"signed_sealed": self.sealed}
        return {"signature": self.signature, "signed": self.signed}

    @classmethod
    def from_entry(cls, doc: Document) -> Proof | None:
        if "signed_sealed" in doc:
            return cls(str(doc.get("signature", "")), None, str(doc["signed_sealed"]))
        if "signature" not in doc:
            return None
        return cls(str(doc["signature"]), str(doc.get("signed", "")), None)


class Join(NamedTuple):
    """A player's join entry of a fair deal (docs/shuffle.md): the entropy they sent, their
    public key if they registered one, their signature if they had a key, and the entry's chain
    digest (the joins are chained after the header, before turn 1).

    rebis-pbm/5 deals in two rounds: a round-1 entry holds the player's ``commitment`` (64
    lower-case hex digits, :func:`rebis_pbm.record.commitments.commitment_of`) and an empty
    ``entropy``; a round-2 entry (the reveal) holds the ``entropy`` and ``after``, the chain
    digest of the last commitment, which pins the whole commitment set."""

    player: str
    entropy: str
    key: str | None = None
    proof: Proof | None = None
    chain_sha256: str = ""
    commitment: str | None = None  # rebis-pbm/5: round 1
    after: str | None = None  # rebis-pbm/5: round 2, the last commitment's chain digest
    at: str | None = None  # rebis-pbm/5, a game with a deadline: when the referee recorded it

    def entry(self) -> Document:
        """The join's record entry without its chain digest: what the chain digest covers."""
        doc: Document = ({"commitment": self.commitment, "player": self.player}
                         if self.commitment is not None
                         else {"join": self.entropy, "player": self.player})
        if self.after is not None:
            doc["after"] = self.after
        if self.at is not None:
            doc["at"] = self.at
        if self.key is not None:
            doc["key"] = self.key
        if self.proof is not None:
            doc.update(self.proof.as_dict())
        return doc

    @classmethod
    def from_entry(cls, doc: Document) -> Join:
        """A schema-valid record entry of ``joins``."""
        return cls(str(doc["player"]), str(doc.get("join", "")),
                   None if doc.get("key") is None else str(doc["key"]),
                   Proof.from_entry(doc), str(doc["chain_sha256"]),
                   None if doc.get("commitment") is None else str(doc["commitment"]),
                   None if doc.get("after") is None else str(doc["after"]),
                   None if doc.get("at") is None else str(doc["at"]))


def commitments(joins: Sequence[Join]) -> dict[str, Join]:
    """Player -> their commitment entry (round 1), of a rebis-pbm/5 join phase."""
    return {j.player: j for j in joins if j.commitment is not None}


def reveals(joins: Sequence[Join]) -> dict[str, Join]:
    """Player -> their join entry that gives the entropy (round 2, or a one-round join)."""
    return {j.player: j for j in joins if j.commitment is None}


def two_round_waiting(players: Sequence[str], joins: Sequence[Join]) -> tuple[int, tuple[str, ...]]:
    """The round a rebis-pbm/5 join phase is in (1: commitments, 2: joins) and the players
    it waits for in seat order (none once every join is in)."""
    committed = commitments(joins)
    if any(p not in committed for p in players):
        return 1, tuple(p for p in players if p not in committed)
    revealed = reveals(joins)
    return 2, tuple(p for p in players if p not in revealed)
