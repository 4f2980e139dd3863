"""What the referee signs (rebis-pbm/4, docs/audit.md "The referee's signatures"): the exact
texts its key signs for a witness, a move it made for a player, a logged action and a refusal
it sent.

Each text names the game and a chain digest, so that one signature vouches for the entry and
everything before it; each kind of text begins with its own words, so that no signature of one
kind passes for another. The referee signs them with ``ssh-keygen -Y sign -n rebis-pbm-referee``
(:data:`~rebis_pbm.crypto.signatures.REFEREE_NAMESPACE`; the app layer runs it); the record
keeps each signature beside the digest it names, where no digest covers it.

Pure functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rebis_pbm.record.model import Record


def witness_text(game: str, move: int, digest: str, header: str | None = None,
                 actions: int | None = None) -> str:
    """The witness line a view shows and the referee signs: ``Witness: game G, move N,
    chain_sha256 D`` (D the chain digest after the record's first N moves: the header's, or the
    last join's, for N = 0); in a rebis-pbm/5 game with a referee key also ``, header_sha256
    H``, the record's header digest (:func:`witness_header`): two games of one id and one
    referee key do not share a signed witness; in a rebis-pbm/6 game with a referee key last
    ``, actions K``, the number of the referee's logged actions (:func:`witness_actions`): an
    act cut off the end of the record (after the seed is public, anyone can recompute
    ``record_hmac``) leaves the signed line naming more acts than the record holds."""
    from rebis_pbm.record.wording import witness_line
    return witness_line(game, move, digest, header, actions)


def witness_header(record: Record) -> str | None:
    """The header digest a witness of ``record`` names: a rebis-pbm/5 game's with a referee
    key; None (the line of rebis-pbm/4) otherwise."""
    from rebis_pbm.record.versions import BEFORE_V5
    return (record.header_sha256 if record.referee_key is not None
            and record.format not in BEFORE_V5 else None)


def witness_actions(record: Record) -> int | None:
    """How many logged actions a witness of ``record`` names: a rebis-pbm/6 game's with a
    referee key (every one in the record); None (the line of rebis-pbm/5) otherwise. Only a
    signed line needs the count: without a referee key no act is signed, and nothing in the
    line binds it to the referee's word."""
    from rebis_pbm.record.versions import BEFORE_V6
    return (len(record.actions) if record.referee_key is not None
            and record.format not in BEFORE_V6 else None)


def refusal_text(record: Record, file_sha256: str, player: str | None, exit_code: int,
                 reason: str) -> str:
    """What the referee signs for a refusal it sends (a refusal mail, a refusal file): ::

        Referee's refusal: game G, move N, chain_sha256 D
        header_sha256 H
        file_sha256 F
        player P
        exit C
        reason SENTENCE

    G the game, N its number of moves and D its last chain digest (the point of the history
    the refused file met), H its header digest, F the SHA-256 of the refused file's bytes
    (hex), P the player who sent it (``-`` when none), C the exit code and SENTENCE the
    reason as sent (on one line). Read back by :mod:`rebis_pbm.record.refusals`."""
    from rebis_pbm.errors import one_line
    return (f"Referee's refusal: game {record.game}, move {len(record.moves)}, chain_sha256 "
            f"{record.last_digest()}\nheader_sha256 {record.header_sha256}\n"
            f"file_sha256 {file_sha256}\nplayer {player or '-'}\nexit {int(exit_code)}\n"
            f"reason {one_line(reason).strip()}")


def record_witness(record: Record) -> str:
    """The witness of ``record`` as it now is: its game, its number of moves, its last chain
    digest (:meth:`Record.last_digest`), and as its format has them its header digest and its
    number of logged actions."""
    return witness_text(record.game, len(record.moves), record.last_digest(),
                        witness_header(record), witness_actions(record))


def move_act_text(record: Record, index: int) -> str:
    """What the referee signs for move ``index`` (0-based), which it made for its player
    (``by: referee``: ``tick``, ``move-for``): ``Referee's move: game G, move N, player P,
    chain_sha256 D``, D the entry's chain digest."""
    return (f"Referee's move: game {record.game}, move {index + 1}, player "
            f"{record.moves[index].player}, chain_sha256 {record.links[index].chain_sha256}")


def action_text(record: Record, index: int, moves: str | None = None) -> str:
    """What the referee signs for its logged action ``index`` (0-based): ``Referee's act: game
    G, action K (KIND), chain_sha256 D, after move N, moves chain_sha256 M``: D the action's
    chain digest (the actions before it and the header), M the chain digest after the N moves
    recorded when it acted (so the act is pinned to the game as it then was): in the join
    phase (N = 0), the digest of the join-phase entries recorded then, the header's when none
    (rebis-pbm/5: the action's ``joins`` counts them; an older record's act in the join phase
    is checked against each, :func:`act_digests`). ``moves`` gives M instead."""
    action = record.actions[index]
    after = int(action.get("after", 0))
    if moves is None:
        moves = act_digests(record, index)[0]
    return (f"Referee's act: game {record.game}, action {index + 1} ({action.get('action')}), "
            f"chain_sha256 {action.get('chain_sha256')}, after move {after}, moves "
            f"chain_sha256 {moves}")


def act_digests(record: Record, index: int) -> list[str]:
    """The chain digests logged action ``index`` (0-based) may have been signed over (``M`` of
    :func:`action_text`), the likeliest first: after its ``after`` moves; in the join phase
    (``after`` 0), after its ``joins`` join-phase entries (rebis-pbm/5), or, in an older record
    that does not count them, after the last join, then each earlier one and the header (its
    signature vouched for whichever it names). ``["none"]`` when the counts name no entry."""
    action = record.actions[index]
    after, joins = int(action.get("after", 0)), action.get("joins")
    if joins is not None:
        count = int(joins)
        return [record.join_prev(count)] if after == 0 and 0 <= count <= len(
            record.joins) else ["none"]
    if after < 0 or after > len(record.moves):
        return ["none"]
    if after or not record.joins:
        return [record.prev_digest(after)]
    return [record.join_prev(count) for count in range(len(record.joins), -1, -1)]


def stand_in(record: Record, index: int) -> bool:
    """Whether move ``index`` (0-based) was made by the referee for its player."""
    return record.stamps[index].get("by") == "referee"


def unsigned_acts(record: Record) -> tuple[list[int], list[int]]:
    """The referee's acts in ``record`` that carry no signature yet: ``(moves, actions)``, each
    a list of 0-based indexes (what a write of a game with a referee key signs)."""
    from rebis_pbm.record.model import REFEREE_SIGNATURE
    moves = [i for i, signature in enumerate(record.referee_signatures)
             if signature is None and stand_in(record, i)]
    actions = [i for i, action in enumerate(record.actions) if REFEREE_SIGNATURE not in action]
    return moves, actions
