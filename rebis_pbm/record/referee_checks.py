"""The referee's signatures checked (rebis-pbm/4, a game created with ``new --referee-key``):
on each move it made for a player, on each logged action and on the record's witness
(docs/audit.md, "The referee's signatures"); :func:`~rebis_pbm.record.verify.walk` runs them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rebis_pbm.record.model import REFEREE_SIGNATURE
from rebis_pbm.record.problems import At, Problem

if TYPE_CHECKING:
    from rebis_pbm.record.model import Record

__all__ = ["check_referee_acts", "check_referee_move"]


def _referee_signed(record: Record, text: str, signature: str | None) -> bool:
    from rebis_pbm.crypto.signatures import REFEREE_NAMESPACE, signed_by
    return signature is not None and record.referee_key is not None and signed_by(
        text.encode("utf-8"), signature, (record.referee_key,), namespace=REFEREE_NAMESPACE)


def check_referee_move(record: Record, index: int) -> Problem | None:
    """Move ``index``'s referee signature (rebis-pbm/4): a move the referee made for its player
    (``by: referee``) in a game with a referee key must carry the referee's signature of
    :func:`~rebis_pbm.record.acts.move_act_text`; no other move carries one."""
    from rebis_pbm.record.acts import move_act_text, stand_in
    signature = record.referee_signatures[index]
    at: At = {"turn": index + 1, "player": record.moves[index].player}
    if record.referee_key is None or not stand_in(record, index):
        if signature is None:
            return None
        return Problem("signature", "this move carries a referee's signature, but it is not a "
                       "move the referee made in a game with a referee key",
                       expected="no referee_signature", found="a referee_signature", **at)
    if _referee_signed(record, move_act_text(record, index), signature):
        return None
    return Problem("signature", "the referee made this move for its player, but the referee's "
                   "key did not sign it: the stand-in move was forged or edited",
                   expected="a valid signature by the game's referee key",
                   found="none" if signature is None else "a signature that does not check",
                   **at)


def check_referee_acts(record: Record) -> Problem | None:
    """The referee's signatures on its logged actions and on the record's witness
    (rebis-pbm/4, a game created with ``new --referee-key``): each action signed over
    :func:`~rebis_pbm.record.acts.action_text`, the witness of the last entry over
    :func:`~rebis_pbm.record.acts.record_witness`. A game without a referee key has none."""
    from rebis_pbm.record.acts import act_digests, action_text, record_witness
    for index, action in enumerate(record.actions):
        signature = action.get(REFEREE_SIGNATURE)
        if record.referee_key is None and signature is None:
            continue
        if not any(_referee_signed(record, action_text(record, index, moves), signature)
                   for moves in act_digests(record, index)):
            return Problem(
                "signature", f"the referee's logged action {index + 1} ({action.get('action')}, "
                f"after move {action.get('after')}) is not signed by the game's referee key: "
                f"it was forged or edited", expected="a valid signature by the game's referee key"
                if record.referee_key else "no referee_signature (the game has no referee key)",
                found="none" if signature is None else "a signature that does not check")
    if record.referee_key is None and record.witness_signature is None:
        return None
    if not _referee_signed(record, record_witness(record), record.witness_signature):
        return Problem(
            "signature", "the record's witness_signature is not the referee's signature of its "
            "last entry: entries were cut off or added since the referee signed",
            turn=len(record.moves) or None,
            expected=f"the referee's signature of '{record_witness(record)}'",
            found="none" if record.witness_signature is None else "a signature that does not "
            "check")
    return None
