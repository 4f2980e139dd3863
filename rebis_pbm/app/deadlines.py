"""Deadlines, missed moves and the referee's logged actions in the record (docs/deadlines.md)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace as dc_replace
from typing import TYPE_CHECKING, NamedTuple

from rebis_pbm.app.create import with_lang
from rebis_pbm.app.games import Game, check_player, for_mover, open_game, require_record
from rebis_pbm.app.moves import Submitted, submit_locked
from rebis_pbm.app.views import check_views_dir, check_writable, write_views
from rebis_pbm.errors import CorruptRecord, Failed, Refused, UsageError
from rebis_pbm.files.atomic import PathLike, write_atomic
from rebis_pbm.files.lock import locked
from rebis_pbm.files.names import default_views_dir
from rebis_pbm.record import BEFORE_V3, Record, dump_record

if TYPE_CHECKING:
    from rebis_pbm.engine import State


class _Ticked(NamedTuple):
    moved: list[tuple[int, str, str]]
    remind: str | None


class Ticked(_Ticked):
    """What :func:`tick` did: the moves the referee made (``(turn, player, reason)``), the
    player a reminder is due for (None: none), and :attr:`late`, the player to move past their
    deadline but within the grace period (rebis-pbm/4 ``grace``: a late notice is due; None:
    none). It is the pair ``(moved, remind)`` as before, ``late`` an attribute beside it, and
    :attr:`ended` the reason a rebis-pbm/5 game ended in its join phase (None: it did not)."""

    late: str | None
    ended: str | None  # rebis-pbm/5: why the game ended in its join phase (None: it did not)

    def __new__(cls, moved: list[tuple[int, str, str]], remind: str | None,
                late: str | None = None, ended: str | None = None) -> Ticked:
        made = super().__new__(cls, moved, remind)
        made.late = late
        made.ended = ended
        return made


def _move_for(game: PathLike, opened: Game, player: str, bot: str, reason: str,
              now: str | None, views_dir: PathLike | None,
              referee_key: PathLike | None = None) -> Submitted:
    """The bot ``bot`` moves for ``player`` (who must be to move in ``opened``, the game as
    read under the lock held), seeing only their information set; the move is recorded as
    the referee's with ``reason`` and the bot."""
    from rebis_pbm.bots import make_bot
    from rebis_pbm.engine import information_set
    from rebis_pbm.formats.yaml_writer import dump_yaml
    record, replay, _ = opened
    state = replay.state
    if record.referee_key is None and record.player_keys(player):
        raise Failed(f"{player} signs their moves, and game {record.game} has no referee key to "
                     f"sign a move made for them (games created with new --referee-key, "
                     f"rebis-pbm/4, have one); nothing was written")
    # The bot's own randomness is drawn from the turn and player: the same position gives the
    # same stand-in move (a replay reads the move from the record anyway).
    move = make_bot(bot, f"{record.game}/{state.turn}/{player}").choose(
        information_set(state, state.to_move))
    # after: the history the stand-in move answers, as a player's move names it (rebis-pbm/4)
    after = {"after": record.last_digest()} if record.pins_history else {}
    data = dump_yaml({"game": record.game, **after, **move.as_dict()}).encode()
    return submit_locked(game, data, f"the referee's move for {player}", author=None,
                   views_dir=views_dir, dry_run=False, file_name=None, now=now,
                   stand_in={"by": "referee", "reason": reason, "bot": bot}, opened=opened,
                   referee_key=referee_key)


def move_for(game: PathLike, player: str, *, bot: str = "greedy", now: str | None = None,
             views_dir: PathLike | None = None,
             referee_key: PathLike | None = None) -> Submitted:
    """The referee moves for ``player`` at their request: the bot chooses from their
    information set; the record says so (``by: referee``, the reason and the bot).

    Raises:
        as :func:`for_mover` and :func:`submit_move`; Failed for a rebis-pbm/1 record.
    """
    from rebis_pbm.record.deadlines import ON_REQUEST
    require_record(game)
    with locked(game):
        record, _ = for_mover(game, player)
        _require_v2(record, game)
        return _move_for(game, open_game(game), player, bot, ON_REQUEST, now, views_dir,
                         referee_key)


def _require_v2(record: Record, game: PathLike) -> None:
    if record.format == "rebis-pbm/1":
        raise Failed(f"{os.fspath(game)} is a rebis-pbm/1 record, which cannot log the "
                     f"referee's actions or moves; they came with rebis-pbm/2 (games created "
                     f"since); nothing was written")


def tick(game: PathLike, *, now: str | None = None, views_dir: PathLike | None = None,
         referee_key: PathLike | None = None) -> Ticked:
    """Apply the game's missed-move policy (docs/deadlines.md): while the player to move is
    past their deadline (``now``, ISO 8601, default the clock), or has missed as many turns as
    the policy ``N`` allows, the bot moves for them (greedy; random with policy ``random``),
    recorded as the referee's move. A game with a grace period (rebis-pbm/4 ``grace``) waits
    for it to end after the deadline first: meanwhile the player is said late
    (:attr:`Ticked.late`). The game's clock stands still while any player is away
    (:func:`rebis_pbm.record.deadlines.deadline_of`). Then says whether a reminder is due for
    the player to move (within 24 h or a quarter of the deadline).

    Raises:
        as :func:`open_game`; Failed when the game has no deadline.
    """
    from rebis_pbm.record.deadlines import (
        MISSED,
        REPLACED,
        RESIGNED,
        deadline_of,
        missed_turns,
        now_text,
        parse_time,
        reminder_due,
        resigned,
    )

    require_record(game)
    now = now_text(now)
    moved: list[tuple[int, str, str]] = []
    with locked(game):
        opened = open_game(game)  # read and replayed once; each move goes on from the last
        while True:
            record, replay, seed = opened
            state = replay.state
            if "deadline" not in record.header_extra:
                raise Failed(f"game {record.game} has no deadline (new --deadline gives one); "
                             f"nothing to do")
            if state is None:  # a fair deal's join phase: no turn yet
                return _tick_join_phase(game, opened, now, views_dir, referee_key)
            if state.finished or record.abandoned(state):
                if not moved:
                    raise Refused(f"game {record.game} is over; no deadline runs any more "
                                  f"(nothing was written)")
                return Ticked(moved, None)
            player = state.player_to_move
            assert player is not None  # a game in play has a player to move
            policy = record.header_extra.get("missed", "bot")
            bot = "random" if policy == "random" else "greedy"
            if resigned(record, player):  # the resign command (docs/mail.md): for good
                reason = RESIGNED
            elif policy.isdigit() and missed_turns(record, player) >= int(policy):
                reason = REPLACED
            elif parse_time(now) > parse_time(deadline_of(record, grace=True) or now):
                reason = MISSED
            elif parse_time(now) > parse_time(deadline_of(record) or now):
                return Ticked(moved, None, player)  # within the grace period: late
            else:
                return Ticked(moved, player if reminder_due(record, now) else None)
            done = _move_for(game, opened, player, bot, reason, now, views_dir, referee_key)
            moved.append((done.move.turn, player, reason))
            opened = Game(done.record, done.replay, seed)


def _tick_join_phase(game: PathLike, opened: Game, now: str, views_dir: PathLike | None,
                     referee_key: PathLike | None) -> Ticked:
    """:func:`tick` in a fair deal's join phase (docs/deadlines.md, "The join phase"). Only a
    rebis-pbm/5 deal has join-phase deadlines: round 1 from ``created``, round 2 from the last
    commitment. Past the deadline and its grace period, the game ends before the deal (an
    ``end_game`` act naming who did not commit or join; the seed revealed): dealing without
    a missing join would let a player who withholds theirs, with the seed's holder, choose
    between two deals. Within the grace period the first player waited for is late; near the
    deadline a reminder is due for them. The lock on ``game`` is held by the caller."""
    from rebis_pbm.app.signing import signed_record
    from rebis_pbm.record.deadlines import deadline_of, parse_time, reminder_due
    record, replay, seed = opened
    waiting = record.waiting_for()
    if not record.two_rounds or record.seed is not None or not waiting:
        return Ticked([], None)  # one round: no join deadline (as before rebis-pbm/5)
    deadline = deadline_of(record) or now
    if parse_time(now) <= parse_time(deadline_of(record, grace=True) or now):
        if parse_time(now) > parse_time(deadline):
            return Ticked([], None, waiting[0])  # within the grace period: late
        return Ticked([], waiting[0] if reminder_due(record, now) else None)
    did = ("did not commit" if record.join_round() == 1 else "did not reveal their join")
    reason = f"ended before the deal: {', '.join(waiting)} {did} by {deadline}"
    from rebis_pbm.record.deadlines import check_forward
    check_forward(record, now)
    ended = record.with_action({"action": "end_game", "at": now, "reason": reason[:REASON_MAX]})
    ended = signed_record(ended.revealed(seed), referee_key)
    check_writable(game)
    write_atomic(game, dump_record(ended, None, seed))
    views = views_dir or default_views_dir(game)
    if os.path.isdir(views):
        check_views_dir(views, record.game, game, record.players)
        write_views(views, ended, replay)
    return Ticked([], None, ended=reason)


def _check_values(game: PathLike, record: Record, state: State | None) -> None:
    """Refuse to write ``record`` when its header, joins, actions or status hold a value the
    record schema refuses (the referee's own read checks digests and replay, not every value
    of a logged action: a signed record edited by the seed's and key's holder, such as an
    extension by -96 h, would be carried into the next write, an ``end-game`` revealing it).

    Raises:
        CorruptRecord: the record as read fails verification (exit 3); nothing was written.
    """
    from rebis_pbm.formats.schemas import quickly_accepted
    if quickly_accepted({**record.to_dict(state), "moves": []}, "record"):
        return
    from rebis_pbm.files.atomic import read_input
    from rebis_pbm.record.audit import verify as run_verify
    data, source = read_input(os.fspath(game), kind="record")
    problem = run_verify(data, source).problem
    if problem is not None:
        raise CorruptRecord(f"{source} fails verification at {problem.sentence()}; nothing was "
                            f"written (rebis-pbm verify {source} tells more)", problem)


REASON_MAX = 200  # characters of a logged action's reason (the record schema's maxLength)


def check_reason(reason: str) -> str:
    """``reason`` as a logged action keeps it: one line of 1 to :data:`REASON_MAX` printable
    characters (``verify`` shows it among the referee's actions: a line break or a control
    character in it could pass for a line of the verdict), outer spaces removed.

    Raises:
        UsageError: an empty reason, one over the length, or one with a line break, tab or
            other control or format character (``--reason``).
    """
    text = reason.strip()
    if not text or len(text) > REASON_MAX or not text.isprintable():
        raise UsageError(f"the reason must be one line of 1 to {REASON_MAX} characters, with no "
                         f"line break, tab or other invisible character (a no-break space, a "
                         f"zero-width joiner; it is shown by verify); nothing was written",
                         "--reason")
    return text


def log_action(game: PathLike, action: str, *, now: str | None = None,
               views_dir: PathLike | None = None, referee_key: PathLike | None = None,
               check: Callable[[Record, str], None] | None = None,
               **fields: str | None) -> Record:
    """Log one of the referee's actions in the record (a rebis-pbm/2 record), chained so that
    ``verify`` catches an edit: ``replace_player`` (``player``, a new ``address`` and/or a new
    public ``key``, one OpenSSH line: that player's later moves must be signed with it,
    :meth:`Record.player_keys`), ``extend_deadline`` (``seconds`` added to the current turn),
    ``end_game`` (then the seed is revealed: :func:`reveal`), ``away`` and ``back``
    (rebis-pbm/4: :mod:`rebis_pbm.app.absences`). ``reason`` may go with any. ``check``: called
    with the record as read under the lock and the action's time, before anything is written
    (it raises to refuse).

    Raises:
        as :func:`open_game`; UsageError for a player not in the game, a language rebis-pbm
        does not speak (:func:`rebis_pbm.present.i18n.check_language`) or a reason that is not one
        line of text (:func:`check_reason`); Failed for a rebis-pbm/1 record or a game that is
        over.
    """
    from rebis_pbm.record.deadlines import now_text
    reason = fields.get("reason")
    if reason is not None:
        fields["reason"] = check_reason(reason)
    require_record(game)
    with locked(game):
        record, replay, seed = open_game(game)
        _require_v2(record, game)
        state = replay.state  # None in the join phase of a fair deal
        if (state is not None and state.finished) or record.abandoned(state):
            raise Refused(f"game {record.game} is over; nothing was written")
        given: dict[str, str] = {k: v for k, v in fields.items() if v is not None}
        if "player" in given:
            check_player(record, given["player"])
        if "lang" in given:
            from rebis_pbm.present.i18n import check_language
            given["lang"] = check_language(given["lang"])
            if record.format in BEFORE_V3:
                raise Failed(f"game {record.game} is a {record.format} record, which keeps no "
                             f"language (languages came with rebis-pbm/3); nothing was written")
        if action == "extend_deadline" and "deadline" not in record.header_extra:
            raise Failed(f"game {record.game} has no deadline to extend; nothing was written")
        from rebis_pbm.record.deadlines import check_forward
        at = now_text(now)
        check_forward(record, at)
        if check is not None:
            check(record, at)
        new_record = record.with_action({"action": action, "at": at, **given})
        if action == "replace_player" and "address" in given:
            addresses = {**new_record.addresses, given["player"]: given["address"]}
            new_record = dc_replace(new_record, addresses=addresses)
        if action == "replace_player" and "lang" in given:
            new_record = dc_replace(new_record, langs=with_lang(new_record.langs, given["player"],
                                                                given["lang"]))
        if action == "end_game":
            new_record = new_record.revealed(seed)
        from rebis_pbm.app.signing import signed_record
        new_record = signed_record(new_record, referee_key)  # rebis-pbm/4: the act signed
        check_writable(game)
        _check_values(game, new_record, state)
        write_atomic(game, dump_record(new_record, state, seed))
        views_dir = views_dir or default_views_dir(game)
        if os.path.isdir(views_dir):
            check_views_dir(views_dir, record.game, game, record.players)
            write_views(views_dir, new_record, replay)
    return new_record
