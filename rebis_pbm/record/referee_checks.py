"""The referee's signatures checked (rebis-pbm/4, a game created with ``new --referee-key``):
on each move it made for a player, on each logged action and on the record's witness
(docs/audit.md, "The referee's signatures"); :func:`~rebis_pbm.record.verify.walk` runs them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rebis_pbm.record.model import REFEREE_SIGNATURE
from rebis_pbm.record.problems import At, Problem

if TYPE_CHECKING:
    from rebis_pbm.engine import Move, State
    from rebis_pbm.record.model import Record

__all__ = ["check_acts", "check_end_acts", "check_referee_acts", "check_referee_move",
           "check_stand_in_bot", "check_stand_in_claim", "check_stand_in_time"]


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
    from rebis_pbm.record.acts import witness_text
    # a record written before its witness line named the header (rebis-pbm/5 as first made):
    # the chain digest covers the header too; the next write signs the line with it
    older = witness_text(record.game, len(record.moves), record.last_digest())
    if not any(_referee_signed(record, text, record.witness_signature)
               for text in dict.fromkeys((record_witness(record), older))):
        from rebis_pbm.record.acts import witness_actions
        return Problem(
            "signature", "the record's witness_signature is not the referee's signature of its "
            + ("last entry: entries were cut off or added since the referee signed"
               if witness_actions(record) is None else "last entry and its number of logged "
               "actions: entries or acts were removed or added since the referee signed"),
            turn=len(record.moves) or None,
            expected=f"the referee's signature of '{record_witness(record)}'",
            found="none" if record.witness_signature is None else "a signature that does not "
            "check")
    return None


def check_acts(record: Record) -> Problem | None:
    """The referee's logged actions (rebis-pbm/4 and later) are ones its commands write, each
    checked against the actions logged before it, as the command that writes it decides:

    - in order: each logged after as many moves as the record holds at most, and after no
      fewer moves than the action before it (``with_action`` writes the moves recorded);
    - in a rebis-pbm/5 (or later) two-round fair deal, ``joins`` on every act before turn 1
      and on no other, counting no more join-phase entries than the record holds and no fewer
      than the act before it (:func:`_check_joins`);
    - an ``end_game`` or ``reveal`` last: no move and no action after it, and the record
      reveals its seed (``end-game`` and ``reveal`` write it; every command refuses a game
      ended);
    - ``away`` and ``back`` as :func:`rebis_pbm.app.absences.take_absence` and
      ``end_absence`` log them (:func:`_check_away`, :func:`_check_back`);
    - a resignation (``replace_player``, reason ``resigned by mail``, nothing replaced) as
      ``resign`` logs it (:func:`_check_resignation`).

    Older records keep verifying as before: their commands did not write these consistently.
    Returns the first problem (code ``schema``), or None."""
    from rebis_pbm.record.deadlines import AWAY, BACK, BEFORE_V4
    if record.format in BEFORE_V4:
        return None
    for index, action in enumerate(record.actions):
        kind = action.get("action")
        problem = _check_order(record, index) or _check_joins(record, index)
        if problem is None and kind in ("end_game", "reveal"):
            problem = _check_end(record, index)
        elif problem is None and kind == AWAY:
            problem = _check_away(record, index)
        elif problem is None and kind == BACK:
            problem = _check_back(record, index)
        elif problem is None and kind == "replace_player":
            problem = _check_resignation(record, index)
        if problem is not None:
            return problem
    return None


def _act(record: Record, index: int) -> str:
    """``the referee's logged action 3 (away, after move 2)``: how a problem names it."""
    action = record.actions[index]
    return (f"the referee's logged action {index + 1} ({action.get('action')}, after move "
            f"{action.get('after')})")


def _check_order(record: Record, index: int) -> Problem | None:
    """Action ``index`` is logged after no more moves than the record holds, and after no
    fewer than the action before it: the referee's commands log each act after the moves
    recorded then. Which time between two moves an act bears stays the referee's word."""
    after = int(record.actions[index].get("after", 0))
    if after > len(record.moves):
        return Problem("schema", f"{_act(record, index)} says it came after move {after}, but "
                       f"the record holds {len(record.moves)}: no command of the referee's "
                       "writes it", expected=f"after at most {len(record.moves)} moves",
                       found=f"after {after}")
    if index and after < int(record.actions[index - 1].get("after", 0)):
        before = int(record.actions[index - 1].get("after", 0))
        return Problem("schema", f"{_act(record, index)} is logged after action {index}, which "
                       f"came after move {before}: the referee's commands log acts in the "
                       "order of the moves, so none writes it", expected=f"after {before} "
                       "moves or more", found=f"after {after}")
    return None


def _check_joins(record: Record, index: int) -> Problem | None:
    """Action ``index``'s ``joins`` (rebis-pbm/5 and later), as ``with_action`` writes it: on
    each act logged before turn 1 (``after`` 0) of a two-round fair deal and on no other act;
    no more than the join-phase entries the record holds; no fewer than the act before it
    counts (acts are logged in the order the entries came). Which join-phase entry an act
    comes after decides which clock an extension lengthens and what its signature names."""
    from rebis_pbm.record.versions import BEFORE_V5
    if record.format in BEFORE_V5:
        return None
    action = record.actions[index]
    joins, written = action.get("joins"), record.two_rounds and int(action.get("after", 0)) == 0
    if joins is None and not written:
        return None
    if joins is None or not written:
        where = ("carries no joins" if joins is None else f"counts {joins} join-phase entries "
                 "(joins)")
        return Problem("schema", f"{_act(record, index)} {where}: the referee's commands write "
                       "joins on every act before turn 1 of a two-round fair deal, and on no "
                       "other", expected="joins: the join-phase entries before it" if written
                       else "no joins", found="no joins" if joins is None else f"joins {joins}")
    count = int(joins)
    if count > len(record.joins):
        return Problem("schema", f"{_act(record, index)} says it came after {count} join-phase "
                       f"entries, but the record holds {len(record.joins)}: no command of the "
                       "referee's writes it", expected=f"joins at most {len(record.joins)}",
                       found=f"joins {count}")
    before = record.actions[index - 1].get("joins") if index else None
    if before is not None and count < int(before):
        return Problem("schema", f"{_act(record, index)} says it came after {count} join-phase "
                       f"entries, but action {index}, logged before it, came after {before}: "
                       "the referee's commands log acts in the order of the join phase, so "
                       "none writes it", expected=f"joins {before} or more",
                       found=f"joins {count}")
    return None


def check_end_acts(record: Record, state: State | None) -> Problem | None:
    """The acts around the game's end, with the state after the record's last move known
    (``state``; None in a fair deal's join phase or without the seed):

    - a game finished by play (the last move ended it): no action logged after that move
      (``after`` the number of moves): every command of the referee's refuses a game that is
      over;
    - a rebis-pbm/4 (or later) record with a referee key that reveals its seed while its game
      is not finished by play: its last logged action is the ``end_game`` or ``reveal`` act
      that revealed it (``end-game``, ``reveal`` and ``tick`` ending a game before the deal
      write it with the seed), so that an act stripped from the end shows. Without a referee
      key ``reveal`` logs no act, and older records are not checked.

    Returns the first problem (code ``schema``), or None."""
    from rebis_pbm.record.deadlines import BEFORE_V4
    moves = len(record.moves)
    if state is not None and state.finished:
        for index, action in enumerate(record.actions):
            if int(action.get("after", 0)) >= moves:
                return Problem("schema", f"{_act(record, index)} is logged after move {moves}, "
                               "which finished the game: every command of the referee's "
                               "refuses a game that is over, so none writes it",
                               expected=f"no action after move {moves}",
                               found=f"{len(record.actions) - index} actions after it")
        return None
    if record.seed is None or record.referee_key is None or record.format in BEFORE_V4:
        return None
    last = record.actions[-1].get("action") if record.actions else None
    if last in ("end_game", "reveal"):
        return None
    return Problem("schema", "the record reveals its seed before its game finished by play, and "
                   "its last logged action is not the end_game or reveal act that revealed "
                   "it: an act was stripped, or no command of the referee's wrote it",
                   turn=moves or None, expected="an end_game or reveal action last",
                   found=f"{last} last" if last else "no logged action")


def _check_end(record: Record, index: int) -> Problem | None:
    """An ``end_game`` (or ``reveal``) action ends the game: ``end-game`` and ``reveal`` write
    it with the seed, after the last move, and no command moves or acts after it."""
    action = record.actions[index]
    if int(action.get("after", 0)) != len(record.moves):
        return Problem("schema", f"a move is recorded after {_act(record, index)}, which ended "
                       "the game: no command of the referee's moves in an ended game",
                       expected=f"no move after move {action.get('after')}",
                       found=f"{len(record.moves)} moves")
    if index != len(record.actions) - 1:
        return Problem("schema", f"{_act(record, index)} ended the game, but action "
                       f"{index + 2} is logged after it: no command of the referee's acts in "
                       "an ended game", expected=f"no action after action {index + 1}",
                       found=f"{len(record.actions) - index - 1} more")
    if record.seed is None:
        return Problem("schema", f"{_act(record, index)} ended the game, but the record does "
                       "not reveal its seed, which end-game and reveal write with it",
                       expected="seed: the game's seed", found="no seed")
    return None


def _no_allowance(record: Record, player: object) -> str | None:
    """Why the game logs no absence of ``player`` (no allowance, a stranger), or None."""
    if not record.header_extra.get("absence") or "deadline" not in record.header_extra:
        return "in a game without an absence allowance"
    if player not in record.players:
        return f"of {player}, who is not a player of this game"
    return None


def _check_away(record: Record, index: int) -> Problem | None:
    """The ``away`` action ``index``, as ``take_absence`` logs it: in a game with an allowance,
    of a player of the game, beginning no earlier than its own ``at`` (an absence cannot begin
    in the past) and ending after it begins, overlapping no absence of the same player logged
    before it (as ``back`` left them), within the allowance of the year it begins in."""
    from rebis_pbm.record.deadlines import absences_of, allowance_used, parse_time
    action = record.actions[index]
    player, start, end = action.get("player"), action.get("start"), action.get("end")
    at = str(action.get("at"))
    why = _no_allowance(record, player)
    begins, ends = parse_time(str(start)), parse_time(str(end))
    if why is None and ends <= begins:
        why = f"of {player} that ends ({end}) before it begins ({start})"
    elif why is None and begins < parse_time(at):
        why = f"of {player} that begins ({start}) before it was logged ({at}), in the past"
    if why is None:
        for other in absences_of(record.actions[:index]):
            if other.player == player and other.end != other.start \
                    and parse_time(other.start) < ends and parse_time(other.end) > begins:
                why = (f"of {player} while an absence of theirs from {other.start} to "
                       f"{other.end} was logged already")
                break
    if why is None:
        allowance = record.header_extra["absence"]
        used, count = allowance_used(record, str(player), begins.year)
        if used <= int(allowance["seconds"]) and count <= int(allowance["slots"]):
            return None
        why = f"of {player} beyond the allowance of {begins.year}"
    return Problem("schema", f"the referee logged an absence {why}: no command of the "
                   "referee's writes it", expected="absences the allowance allows, each "
                   "beginning when it is logged or later and overlapping none of the player's",
                   found=f"away {player} from {start} to {end}, logged at {at}")


def _check_resignation(record: Record, index: int) -> Problem | None:
    """A ``replace_player`` action ``index`` saying its player resigned (reason ``resigned by
    mail``, nothing replaced), as ``resign`` (mail and git) logs it: not in the join phase of a
    two-round fair deal (the bot cannot join), not for a player who has resigned already, nor
    for one who has a key in force then (the bot cannot sign for them; ``replace-player``
    always replaces something)."""
    from dataclasses import replace

    from rebis_pbm.record.deadlines import RESIGNED, resigned_in
    action = record.actions[index]
    player = str(action.get("player"))
    if action.get("reason") != RESIGNED or {"address", "key", "lang"} & set(action):
        return None
    before = record.actions[:index]
    if record.two_rounds and int(action.get("joins", 2 * len(record.players))) \
            < 2 * len(record.players):
        why = "before the deal, when the bot cannot join for them"
    elif resigned_in(before, player):
        why = "when they had resigned already"
    elif replace(record, actions=before).player_keys(player):
        why = "though they had registered a key, and the bot cannot sign for them"
    else:
        return None
    return Problem("schema", f"{_act(record, index)} says {player} resigned {why}: resign "
                   "refuses it, and no command of the referee's writes it", expected="a "
                   "resignation of a player without a key, once, after the deal",
                   found=f"{player} resigned ({RESIGNED})")


def _check_back(record: Record, index: int) -> Problem | None:
    """The ``back`` action ``index``: the referee's ``back`` command (``end_absence``) logs it
    only for a player of a game with an allowance who, at its time, is away or has an absence
    to come (:func:`~rebis_pbm.record.deadlines.away_now` of the actions logged before it)."""
    from rebis_pbm.record.deadlines import absences_of, parse_time
    action = record.actions[index]
    player, at = action.get("player"), str(action.get("at"))
    why = _no_allowance(record, player)
    if why is None:
        when = parse_time(at)
        if any(a.player == player and a.end != a.start and parse_time(a.end) > when
               for a in absences_of(record.actions[:index])):
            return None
        why = f"of {player}, who at {at} was not away and had no absence to come"
    return Problem("schema", f"the referee logged a return (back) {why}: no command of the "
                   "referee's writes it", expected="back only during or before an absence of a "
                   "player of a game with an absence allowance", found=f"back {player} at {at}")


def check_stand_in_claim(record: Record, index: int) -> Problem | None:
    """A move the referee made for its player (``by: referee``) in a rebis-pbm/4 or later
    record names one of the reasons and one of the bots ``tick`` and ``move-for`` write (a
    missed deadline, the player's request, a player replaced or resigned; ``greedy`` or
    ``random``): a label of another spelling, or none, would escape the checks of the time
    (:func:`check_stand_in_time`) and of the bot's choice (:func:`check_stand_in_bot`). A
    player said replaced or resigned must have been so, as the record stood before the move
    (:func:`_check_stand_in_reason`)."""
    from rebis_pbm.bots import STRATEGIES
    from rebis_pbm.record.acts import stand_in
    from rebis_pbm.record.deadlines import BEFORE_V4, MISSED, ON_REQUEST, REPLACED, RESIGNED
    if record.format in BEFORE_V4 or not stand_in(record, index):
        return None
    stamp = record.stamps[index]
    reason, bot = stamp.get("reason"), stamp.get("bot")
    if reason in (MISSED, ON_REQUEST, REPLACED, RESIGNED) and bot in STRATEGIES:
        return _check_stand_in_reason(record, index)
    return Problem("stand_in", f"the referee's move for {record.moves[index].player} names no "
                   "reason and bot the referee's commands write, so neither its time nor its "
                   "choice can be checked", expected="reason: " + ", ".join(
                       (MISSED, ON_REQUEST, REPLACED, RESIGNED)) + "; bot: "
                   + " or ".join(STRATEGIES), found=f"reason: {reason}; bot: {bot}",
                   turn=index + 1, player=record.moves[index].player)


def _check_stand_in_reason(record: Record, index: int) -> Problem | None:
    """A stand-in move (rebis-pbm/4 or later) that says its player was replaced by the bot or
    resigned, checked against the record before it, as ``tick`` and ``resign`` decide
    (:func:`rebis_pbm.app.deadlines.tick`): ``replaced by the bot after missed deadlines`` only
    under a ``missed: N`` policy once the player had N turns played for them for a missed
    deadline; ``resigned by mail`` only after a ``replace_player`` action with that reason for
    the player (:func:`~rebis_pbm.record.deadlines.resigned`), logged at or before the move."""
    from rebis_pbm.record.deadlines import MISSED, REPLACED, RESIGNED, resigned_in
    reason, player = record.stamps[index].get("reason"), record.moves[index].player
    at: At = {"turn": index + 1, "player": player}
    if reason == RESIGNED:
        if resigned_in([a for a in record.actions if int(a.get("after", 0)) <= index], player):
            return None
        return Problem("stand_in", f"the referee's move for {player} says they resigned, but "
                       f"no replace_player action logged before it says {player} resigned "
                       f"({RESIGNED})", expected=f"a replace_player action for {player} with "
                       f"the reason {RESIGNED} before this move", found="none", **at)
    if reason != REPLACED:
        return None
    policy = str(record.header_extra.get("missed", ""))
    missed = sum(1 for move, stamp in zip(record.moves[:index], record.stamps[:index],
                                          strict=True)
                 if move.player == player and stamp.get("by") == "referee"
                 and stamp.get("reason") == MISSED)
    if policy.isdigit() and missed >= int(policy):
        return None
    rule = f"--missed {policy}" if policy else "no missed-move policy"
    need = f"{policy} turns missed" if policy.isdigit() else "a missed-move policy of N turns"
    return Problem("stand_in", f"the referee's move for {player} says the bot replaced them "
                   f"after missed deadlines, but under the game's rule ({rule}) {player} had "
                   f"not been replaced: {missed} of their turns were played for a missed "
                   f"deadline before it", expected=need, found=f"{missed} turns missed", **at)


def check_stand_in_time(record: Record, index: int) -> Problem | None:
    """A move the referee made for its player (``by: referee``) recorded as a ``missed
    deadline`` must come at or after that turn's deadline plus the grace period, computed from
    the record as it stood before the move (:func:`~rebis_pbm.record.deadlines.deadline_of`:
    deadlines are data); in a rebis-pbm/4 or later record it must carry its time (``at``), in
    a game with a deadline, as ``tick`` writes it. A player replaced or resigned is checked
    against the record by :func:`check_stand_in_claim`; a request of the player's is the
    referee's word, which verify names as such."""
    from dataclasses import replace

    from rebis_pbm.record.acts import stand_in
    from rebis_pbm.record.deadlines import BEFORE_V4, MISSED, deadline_of, parse_time
    stamp = record.stamps[index]
    if not stand_in(record, index) or stamp.get("reason") != MISSED:
        return None
    if record.format not in BEFORE_V4 and ("at" not in stamp
                                           or not record.header_extra.get("deadline")):
        # tick, the only command that moves for a missed deadline, needs the game's deadline
        # and writes the time of every move it makes: without them, nothing to check
        why = "carries no time (at)" if "at" not in stamp else "is in a game without a deadline"
        return Problem("stand_in", f"the referee's move for {record.moves[index].player} for "
                       f"a missed deadline {why}, so that deadline cannot be checked: tick, "
                       "the only command that writes it, dates it in a game with a deadline",
                       expected="at: the time of the move, in a game with a deadline",
                       found="no at" if "at" not in stamp else "no deadline",
                       turn=index + 1, player=record.moves[index].player)
    if "at" not in stamp:
        return None
    before = replace(record, moves=record.moves[:index], links=record.links[:index],
                     stamps=record.stamps[:index], proofs=record.proofs[:index],
                     referee_signatures=record.referee_signatures[:index],
                     actions=tuple(a for a in record.actions if int(a.get("after", 0)) <= index))
    due = deadline_of(before, grace=True)
    if due is None or parse_time(str(stamp["at"])) >= parse_time(due):
        return None
    return Problem("stand_in", f"the referee moved for {record.moves[index].player} for a "
                   f"missed deadline at {stamp['at']}, before that turn's deadline and grace "
                   f"period ran out ({due})", expected=f"at {due} or later",
                   found=f"at {stamp['at']}", turn=index + 1, player=record.moves[index].player)


def check_stand_in_bot(record: Record, index: int, state: State, move: Move) -> Problem | None:
    """With the game's state before move ``index`` known (the seed): a move the referee made
    for its player with a bot (``bot: greedy`` or ``random``) must be the move that bot chooses
    from the player's information set, drawing from the game, turn and player as ``tick`` and
    ``move-for`` do (:func:`~rebis_pbm.bots.make_bot`)."""
    from rebis_pbm.bots import make_bot
    from rebis_pbm.engine import information_set
    from rebis_pbm.record.acts import stand_in
    bot = record.stamps[index].get("bot")
    if not stand_in(record, index) or bot not in ("greedy", "random"):
        return None
    chosen = make_bot(str(bot), f"{record.game}/{state.turn}/{move.player}").choose(
        information_set(state, state.to_move))
    if chosen == move:
        return None
    return Problem("stand_in", f"the referee's move for {move.player} is recorded as the {bot} "
                   f"bot's, but that bot chooses another move there", expected=f"the {bot} "
                   f"bot's move", found="another move", turn=index + 1, player=move.player)
