"""The two rounds of a rebis-pbm/5 fair deal at ``apply``: a commitment, then the join it hides.

docs/shuffle.md, "Two rounds": round 1 takes one commitment per player, in any order; round 2
opens when every commitment is recorded and takes each player's join, which must name the last
commitment's chain digest (``after:``) and hash to the player's commitment.
"""

from __future__ import annotations

from typing import Protocol

from rebis_pbm.engine.phrases import N_, Phrase
from rebis_pbm.errors import Refused
from rebis_pbm.record import Record
from rebis_pbm.record.commitments import (
    commitment_of,
    commitments,
    entry_signer,
    reveals,
    two_round_waiting,
)


class JoinMove(Protocol):
    """What this module reads of a join-phase move as sent (``app.moves.JoinMove``)."""

    @property
    def player(self) -> str: ...
    @property
    def entropy(self) -> str: ...
    @property
    def key(self) -> str | None: ...
    @property
    def commitment(self) -> str | None: ...
    @property
    def after(self) -> str | None: ...

__all__ = ["check_round", "last_commitment", "same_entry"]


def last_commitment(record: Record) -> str | None:
    """The chain digest of the last commitment entry (what a round-2 join names as ``after``),
    None while none is recorded."""
    found = [j.chain_sha256 for j in record.joins if j.commitment is not None]
    return found[-1] if found else None


def same_entry(record: Record, move: JoinMove, key: str | None) -> bool:
    """Whether ``move`` is already recorded as it is (a mail delivered twice): the same
    commitment and key, or the same join text."""
    if move.commitment is not None:
        found = commitments(record.joins).get(move.player)
        return found is not None and found.commitment == move.commitment and found.key == key
    found = reveals(record.joins).get(move.player)
    return found is not None and found.entropy == move.entropy


def check_round(record: Record, move: JoinMove, signed: bool, source: str) -> None:
    """Refuses (exit 1) a commitment or join that does not belong where the join phase is:
    a commitment to a one-round game, in round 2, or a second one; a join in round 1, a
    second one, one bringing a key, one naming another history (``after``; a signed join
    must name it), or one that does not hash to its player's commitment."""
    values = {"source": source, "player": move.player, "game": record.game}
    if not record.two_rounds:
        raise Refused(phrase=Phrase(N_(
            "{source}: move rejected: game {game} is a {format} record, whose fair deal takes "
            "one round: send your join (join: your text), not a commitment"),
            {**values, "format": record.format}))
    round_, waiting = two_round_waiting(record.players, record.joins)
    if move.commitment is not None:
        if round_ == 2:
            raise Refused(phrase=Phrase(N_(
                "{source}: move rejected: every commitment is recorded and the deal is in its "
                "second round: {player} now sends their join (rebis-pbm play on their view "
                "writes it), not a commitment"), values))
        recorded = commitments(record.joins).get(move.player)
        signer = None if recorded is None else entry_signer(record, recorded)
        if signer is not None:
            from rebis_pbm.crypto.signatures import fingerprint
            raise Refused(phrase=Phrase(N_(
                "{source}: move rejected: a commitment in {player}'s name, signed by key "
                "{fingerprint}, is already recorded; a player commits once (if that key is not "
                "yours, someone else committed for you: tell the other players)"),
                {**values, "fingerprint": fingerprint(signer)}))
        if recorded is not None:
            raise Refused(phrase=Phrase(N_(
                "{source}: move rejected: {player} has sent their commitment already; a player "
                "commits once"), values))
        if move.key is not None and record.join_keys(move.player):
            # verify judges the join by the keys registered already (join_phase_keys)
            raise Refused(phrase=Phrase(N_(
                "{source}: move rejected: {player} has a key registered already, so their "
                "commitment brings no other key: remove key: and sign with the registered "
                "key"), values))
        return
    if round_ == 1:
        raise Refused(phrase=Phrase(N_(
            "{source}: move rejected: this is a join, but the deal is in its first round and "
            "waits for commitments by {players}: send your commitment first (rebis-pbm play on "
            "your view writes it) and your join only once every commitment is recorded"),
            {**values, "players": ", ".join(waiting)}))
    if move.player in reveals(record.joins):
        raise Refused(phrase=Phrase(N_(
            "{source}: move rejected: {player} has joined already; a player joins once"),
            values))
    if move.key is not None:
        raise Refused(phrase=Phrase(N_(
            "{source}: move rejected: a join of the second round brings no key: a key comes "
            "with the commitment; remove key:"), values))
    last = last_commitment(record)
    if move.after is None and signed:
        raise Refused(phrase=Phrase(N_(
            "{source}: move rejected: {player} registered a key, so their join must name the "
            "commitments it answers: add after: {after} (as the view's template gives it) and "
            "sign the file again"), {**values, "after": last}))
    if move.after is not None and move.after != last:
        raise Refused(phrase=Phrase(N_(
            "{source}: move rejected: this join answers another history (after: {given}), not "
            "the commitments of game {game} (after: {after}); write it from your view of this "
            "game's second round"), {**values, "given": move.after, "after": last}))
    committed = commitments(record.joins)[move.player]
    if commitment_of(record.game, move.player, move.entropy) != committed.commitment:
        raise Refused(phrase=Phrase(N_(
            "{source}: move rejected: this join does not match the commitment you sent in the "
            "first round (commitment: {commitment}); send the very join text your commitment "
            "hashed (rebis-pbm play keeps it beside your commitment)"),
            {**values, "commitment": committed.commitment}))
