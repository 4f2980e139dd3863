"""The two rounds of a rebis-pbm/5 fair deal: each player's commitment, then their join.

A fair deal of rebis-pbm/5 (docs/shuffle.md, "Two rounds") takes every player's commitment
first, and only when all are recorded their joins (the entropy itself, the reveal): whoever
joins last has committed to their entropy before seeing anyone's, so they cannot try several
(the referee's seed holder with them). The commitment binds the game id and the player's name
(:func:`commitment_of`), so it cannot be copied to another seat or game.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from rebis_pbm.record.entries import Join, commitments, reveals, two_round_waiting
from rebis_pbm.record.versions import BEFORE_V5

if TYPE_CHECKING:
    from rebis_pbm.record.model import Record

__all__ = ["BEFORE_V5", "COMMITMENT_DOMAIN", "commitment_of", "commitments",
           "entry_signer", "join_phase_keys", "reveals", "two_round_waiting"]

COMMITMENT_DOMAIN = "rebis-pbm-commitment"  # the first line of what a commitment hashes


def commitment_of(game: str, player: str, entropy: str) -> str:
    """The commitment to ``entropy`` of ``player`` in game ``game``: the SHA-256 (64
    lower-case hex digits) of the UTF-8 text ``rebis-pbm-commitment`` LF GAME LF PLAYER LF
    ENTROPY (no final newline; a game id and a name hold no line break, so the encoding is
    unambiguous). The same as ``printf '%s\\n%s\\n%s\\n%s' rebis-pbm-commitment GAME PLAYER
    ENTROPY | sha256sum`` (docs/shuffle.md)."""
    text = "\n".join((COMMITMENT_DOMAIN, game, player, entropy))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def join_phase_keys(record: Record, player: str) -> tuple[str, ...]:
    """The keys a signature on ``player``'s commitment or join may be made with: the one rule
    ``apply`` and ``verify`` both judge them by (docs/audit.md). Those the header registered
    (``new --key``) and those a ``replace_player`` action logged before turn 1
    (:meth:`~rebis_pbm.record.model.Record.join_keys`); for a player with none, the key their
    own commitment (rebis-pbm/5) or join brought, which proves it holds it by signing with it.
    ``()``: an unsigned player."""
    return record.join_keys(player) or tuple(
        j.key for j in record.joins if j.player == player and j.key)


def entry_signer(record: Record, join: Join) -> str | None:
    """The key (of :func:`join_phase_keys`) whose signature ``join`` (a commitment or a join
    entry) carries, or None: unsigned, or signed by none of them. What ``verify`` names by its
    fingerprint, so that each player checks the key is theirs."""
    from rebis_pbm.crypto.signatures import signed_by
    proof = join.proof
    if proof is None or proof.signed is None:
        return None
    data = proof.signed.encode("utf-8")
    return next((key for key in join_phase_keys(record, join.player)
                 if signed_by(data, proof.signature, (key,))), None)
