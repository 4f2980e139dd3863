"""A player's commands (help, view, moves, history, away, back, resign), for every transport.

A command is one line, ``NAME [GAME]`` (``away FROM TO [GAME]``; docs/mail.md, "Commands"): the
transports find the line (a mail's subject or first line of text, a git command file) and answer
with what :func:`carry_out` returns, to the player alone. ``away`` and ``back`` log an absence
(:mod:`rebis_pbm.app.absences`) in a game with an allowance. ``resign`` changes the record
too: it is logged as the referee's ``replace_player`` action with the reason ``resigned by
mail`` and no new address, key or language (the record's format has no action of its own for it:
:func:`rebis_pbm.record.deadlines.resigned` reads it), and from then on the bot moves for that
player whenever they are to move (:func:`play_resigned`), each move recorded as the referee's
with the same reason, as ``tick`` records a missed deadline's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from rebis_pbm.app.deadlines import _move_for, _require_v2
from rebis_pbm.app.games import Game, open_game
from rebis_pbm.app.reading import legal_moves_listing
from rebis_pbm.app.views import stand_ins
from rebis_pbm.engine.phrases import N_, Phrase
from rebis_pbm.errors import Failed, RebisError, Refused, UsageError
from rebis_pbm.files.atomic import PathLike
from rebis_pbm.files.lock import locked
from rebis_pbm.record import Record, Replay
from rebis_pbm.record.deadlines import RESIGNED, resigned
from rebis_pbm.record.witness import history_point

if TYPE_CHECKING:
    from rebis_pbm.app.absences import Away

LINE = re.compile(r"[ \t]*([A-Za-z][A-Za-z-]*)((?:[ \t]+[^\s:]+)*)[ \t]*")  # NAME [WORDS]
# away FROM TO [GAME]: its times may hold ":" (2026-12-10T09:00Z), which a move's first line has
AWAY = re.compile(r"[ \t]*(away)((?:[ \t]+\S+){0,4})[ \t]*", re.IGNORECASE)
DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
# a command naming the point of the history it answers (issue 27): "... after D actions K"
POINT = re.compile(r"(.*?)[ \t]+after[ \t]+(\S+)(?:[ \t]+actions[ \t]+(\S+))?[ \t]*",
                   re.IGNORECASE | re.DOTALL)
DIGEST = re.compile(r"[0-9a-f]{64}")
COUNT = re.compile(r"0|[1-9][0-9]{0,8}")
# the commands that change the record: carried out only at the point of history they name
CHANGING = frozenset({"away", "back", "resign"})
# those a player with a key must sign with their point (resign is refused to them anyway: the
# bot cannot sign their moves), so that the refusal they get is the one that counts
POINTED = CHANGING - {"resign"}
AWAY_REASON = "away by command"  # the reason of an absence the away command logs


class Command(NamedTuple):
    """A command line read (:func:`parse_command`): its ``name`` (lower case, possibly no
    command's), the game it names (``game``, or None), the ``line`` as written (what a
    player with a key signs) and the words the command takes (``args``: ``away``'s FROM and
    TO); the point of the history it answers, as written, when the line ends with one
    (``after D actions K``: ``after`` D and ``actions`` K, checked by :func:`check_point`),
    and ``words``, the line without it."""

    name: str
    game: str | None
    line: str
    args: tuple[str, ...] = ()
    after: str | None = None
    actions: str | None = None
    words: str = ""


class Answer(NamedTuple):
    """What a command gives its player: ``title`` (a subject's words after ``[Rebis GAME]``)
    and ``text`` (the message's text), both in the player's language; ``view``: the player's
    view is to be sent as ``mail views --player`` sends it (``view``), with no text of its own;
    ``moved``: the bot moved for the player (``resign``), so every player's view changed."""

    title: str
    text: str
    view: bool = False
    moved: int = 0


class Request(NamedTuple):
    """A command to carry out: the ``game``'s record, the ``player`` who sent it, their
    ``lang``, the time a change is logged at (``now``; None: the clock), the command's words
    (``args``) and the views folder a change writes (``views_dir``; None: beside the record)."""

    game: PathLike
    player: str
    lang: str | None
    now: str | None = None
    args: tuple[str, ...] = ()
    views_dir: PathLike | None = None


Handler = Callable[[Request], Answer]


class Spec(NamedTuple):
    """One command of the table: ``summary`` (a line of the help, translatable),
    ``handler(request)``, and ``available(record)`` (None: always; else
    whether this game offers the command)."""

    summary: str
    handler: Handler
    available: Callable[[Record], bool] | None = None


def _gettext(lang: str | None) -> Callable[[str], str]:
    from rebis_pbm.present.i18n import gettext_for
    return gettext_for(lang)


def _offered(spec: Spec, record: Record | None) -> bool:
    return spec.available is None or record is None or spec.available(record)


def help_text(lang: str | None, record: Record | None = None) -> str:
    """The commands, one a line, and how to send one, in ``lang``; with ``record``, the
    commands its game does not offer are named apart (``away``, ``back``: no allowance)."""
    _ = _gettext(lang)
    rows = [f"{name:<9} {_(spec.summary)}" for name, spec in COMMANDS.items()
            if _offered(spec, record)]
    off = [name for name, spec in COMMANDS.items() if not _offered(spec, record)]
    lines = [_("Commands: write one of these words as the subject of a message to the referee, "
               "or as the first line of its text (the game's id may follow it, e.g. "
               "\"history GAME\"):"), "", *rows]
    if off:
        lines += ["", _("Not available in this game: {commands}.").format(
            commands=", ".join(off))]
    lines += ["", _("A player who registered a key signs the command line, which then names the "
                    "game (\"history GAME\"): ssh-keygen -Y sign -f KEY -n rebis-pbm FILE, with "
                    "FILE holding that line; attach FILE.sig, or paste the signature below "
                    "the line.")]
    if record is not None and record.pins_history and "away" not in off:
        lines.append(_("Signed, away and back also end with the point of the history they "
                       "answer, as your own view gives it (\"Your signed away and back commands "
                       "end with: ...\"): \"back GAME after D actions K\", GAME the game's id; "
                       "each is carried out only at that point, once."))
    return "\n".join(lines)


def _help(request: Request) -> Answer:
    lang = request.lang
    return Answer(_gettext(lang)(N_("the commands")),
                  help_text(lang, open_game(request.game).record))


def _view(request: Request) -> Answer:
    lang = request.lang
    return Answer(_gettext(lang)(N_("your view")), "", view=True)


def _moves(request: Request) -> Answer:
    game, player, lang = request.game, request.player, request.lang
    _ = _gettext(lang)
    listing = legal_moves_listing(game, player, "yaml")  # Refused when not their turn
    moves = [doc for doc in listing.split("---\n") if doc.strip()]
    blocks = [f"# {number}\n---\n{doc}..." for number, doc in enumerate(moves, 1)]
    head = _("Your legal moves: {count}. Each block below, from its line '---' to its line "
             "'...', is a move file ready to send: reply with the one you choose in your "
             "text (or saved as a file and attached).").format(count=len(moves))
    return Answer(_("your legal moves"), head + "\n\n" + "\n\n".join(blocks))


def moves_elsewhere(lang: str | None) -> Answer:
    """The answer to ``moves`` where others can measure its length (a file committed to a
    repository, even encrypted): the listing's length grows with how many distinct and closing
    cards the hand holds, so it is not written there; this says how the player lists their
    moves on their own machine from their view alone (docs/git.md, "Commands")."""
    _ = _gettext(lang)
    return Answer(_("your legal moves"), _(
        "Your legal moves are not listed here: every reader of this repository can measure an "
        "answer's length, and the length of that list would tell them about your hand. List "
        "them on your own machine from your view, which is all it takes: rebis-pbm play VIEW "
        "lists them and writes the move you choose (--identity KEY opens an encrypted view, "
        "game.views/NAME.yaml.age), and rebis-pbm moves --view VIEW.yaml lists them all."))


def standing_line(record: Record, replay: Replay, lang: str | None,
                  viewer: str | None = None) -> str:
    """What anyone may know of where the game stands, in ``lang``: the turn awaited and whose,
    or the end; in a fair deal's join phase, whom the deal waits for. Every answer ends so.
    Said to ``viewer`` (the player it is sent to; None: anyone), in the second person when it
    is their move ("your move")."""
    from rebis_pbm.present.views import standing
    state = replay.state
    if state is None:  # the join phase of a fair deal
        return _gettext(lang)(N_("The deal waits for joins by {players}.")).format(
            players=", ".join(record.waiting_for()))
    return standing(state.phase, state.turn, state.player_to_move, record.abandoned(state), lang,
                    viewer)


def history_lines(record: Record, replay: Replay, lang: str | None) -> list[str]:
    """Every move so far as the public view tells it (no hidden card), one line each, in
    ``lang``: the deal, then ``Turn N (player): ...``; a move the referee made for its player
    says so. Empty in the join phase of a fair deal (nothing is played before the deal)."""
    from rebis_pbm.present.views import account
    if replay.state is None:
        return []
    _ = _gettext(lang)
    reasons = stand_ins(record)
    lines = [_("The deal: {account}").format(account=account(replay.setup_events, None, lang))]
    for move, events in replay.history:
        lines.append(_("Turn {turn} ({player}): {account}").format(
            turn=move.turn, player=move.player,
            account=account(events, None, lang, stand_in=reasons.get(move.turn))))
    return lines


def _history(request: Request) -> Answer:
    game, lang = request.game, request.lang
    _ = _gettext(lang)
    record, replay, _seed = open_game(game)
    lines = history_lines(record, replay, lang)
    text = "\n".join(lines) if lines else _(
        "No move has been made yet: the deal waits for joins by {players}.").format(
            players=", ".join(record.waiting_for()))
    return Answer(_("the moves so far"), text)


def _resign(request: Request) -> Answer:
    game, player, lang = request.game, request.player, request.lang
    _ = _gettext(lang)
    moved = resign(game, player, now=request.now, views_dir=request.views_dir)
    text = _("You have left the game: from now on the bot moves for you, to the end of the "
             "game, and the record says so (the referee's action `replace-player`, "
             "\"{reason}\"). "
             "You still receive your view after each move.").format(reason=_(RESIGNED))
    return Answer(_("you resigned"), text, moved=moved)


def resign(game: PathLike, player: str, *, now: str | None = None,
           views_dir: PathLike | None = None) -> int:
    """``player`` leaves the game for good (the ``resign`` command): logged as the referee's
    ``replace_player`` action (reason ``resigned by mail``, nothing replaced), then the bot
    moves for them at once if they are to move (:func:`play_resigned`). Returns how many
    moves the bot made.

    Raises:
        Refused: the game is over or abandoned, in its join phase (the bot cannot join for
            them), the player resigned already, or registered a key (a stand-in move would
            need their signature); a rebis-pbm/1 record, which logs no action. Nothing written.
        as :func:`rebis_pbm.app.deadlines.log_action` for the referee's side.
    """
    from rebis_pbm.app.deadlines import log_action
    record, replay, _seed = open_game(game)
    _refuse_resign(record, replay, player, game)
    log_action(game, "replace_player", now=now, views_dir=views_dir, player=player,
               reason=RESIGNED)
    return len(play_resigned(game, now=now, views_dir=views_dir))


def _refuse_resign(record: Record, replay: Replay, player: str, game: PathLike) -> None:
    state = replay.state
    if state is None:
        raise Refused(phrase=Phrase(N_("{player} cannot resign before the deal: the bot cannot "
                                       "join for them; they send their join, or ask the "
                                       "referee"),
                                    {"player": player}))
    if state.finished or record.abandoned(state):
        raise Refused(phrase=Phrase(N_("game {game} is over; nothing changed"),
                                    {"game": record.game}))
    if resigned(record, player):
        raise Refused(phrase=Phrase(N_("{player} has resigned already; nothing changed"),
                                    {"player": player}))
    if record.player_keys(player):
        raise Refused(phrase=Phrase(N_("{player} registered a key, and the bot cannot sign "
                                       "moves for them: only the referee can end their part"),
                                    {"player": player}))
    try:
        _require_v2(record, game)
    except Failed as exc:  # a rebis-pbm/1 record logs no action
        raise Refused(str(exc)) from None


def play_resigned(game: PathLike, *, now: str | None = None,
                  views_dir: PathLike | None = None) -> list[tuple[int, str]]:
    """While the player to move has resigned (:func:`rebis_pbm.record.deadlines.resigned`),
    the bot (greedy) moves for them, recorded as the referee's with the reason ``resigned by
    mail``, under the record's lock (a player with a key is left alone: the bot cannot sign).
    Returns ``(turn, player)`` of each move made (none: nothing written).

    Raises:
        as :func:`rebis_pbm.app.moves.submit_move` for the referee's side.
    """
    moved: list[tuple[int, str]] = []
    with locked(game):
        opened = open_game(game)
        while True:
            record, replay, seed = opened
            state = replay.state
            if (state is None or state.finished or record.abandoned(state)
                    or state.player_to_move is None
                    or not resigned(record, state.player_to_move)):
                return moved
            player = state.player_to_move
            if record.player_keys(player):  # the bot cannot sign for them
                return moved
            done = _move_for(game, opened, player, "greedy", RESIGNED, now, views_dir)
            moved.append((done.move.turn, player))
            opened = Game(done.record, done.replay, seed)


def _has_allowance(record: Record) -> bool:
    from rebis_pbm.record import BEFORE_V4
    return (record.format not in BEFORE_V4 and bool(record.header_extra.get("absence"))
            and "deadline" in record.header_extra)


def _when(word: str, zone: str | None, *, end: bool, now: str) -> str:
    """``away``'s FROM or TO as an ISO 8601 time (UTC): ``now``; a date (the player's day, in
    their time zone: FROM its start, or now when that day is today; TO its end); or an
    ISO 8601 time with its zone.

    Raises:
        Refused: any other word.
    """
    from datetime import datetime, time, timedelta, timezone

    from rebis_pbm.record.deadlines import format_time, parse_time
    if word.lower() == "now" and not end:
        return now
    if DATE.fullmatch(word):
        import zoneinfo
        try:
            day = datetime.strptime(word, "%Y-%m-%d").date()
            tz = zoneinfo.ZoneInfo(zone) if zone else timezone.utc
            start = datetime.combine(day + timedelta(days=1) if end else day, time(), tz)
            # FROM today (its start passed, its end not): from now; a day already over stays
            # as it is, and the absence is refused as beginning in the past
            today = not end and start <= parse_time(now) < start + timedelta(days=1)
            return now if today else format_time(start)
        except (ValueError, OverflowError):  # no such day, or one at the calendar's ends
            pass
    else:
        try:
            return format_time(parse_time(word))
        except UsageError:
            pass
    raise Refused(phrase=Phrase(N_(
        "\"{word}\" is not a date: write away FROM TO, each a date such as 2026-12-10 (a day "
        "in your time zone; FROM may be now) or a time such as 2026-12-10T09:00:00Z"),
        {"word": word}))


def _absence_refused(exc: RebisError) -> Refused:
    """An absence the game cannot log (:mod:`rebis_pbm.app.absences`' sentence), as a refusal of
    the command; nothing was written."""
    reason = getattr(exc, "phrase", None) or str(exc)  # a phrase: said in the player's words
    return Refused(phrase=Phrase(N_("the absence was not logged: {reason}"),
                                 {"reason": reason}))


def _away(request: Request) -> Answer:
    from rebis_pbm.app.absences import take_absence
    from rebis_pbm.record.deadlines import now_text, shown_time, time_zone_of
    game, player, lang = request.game, request.player, request.lang
    now, args = request.now, request.args
    _ = _gettext(lang)
    if len(args) != 2:
        raise Refused(phrase=Phrase(N_(
            "away takes two dates: away FROM TO (e.g. away 2026-12-10 2026-12-17, or away now "
            "2026-12-17), then the game's id if you sign it"), {}))
    record = open_game(game).record
    zone = time_zone_of(record, player)
    at = now_text(now)
    start, end = _when(args[0], zone, end=False, now=at), _when(args[1], zone, end=True, now=at)
    try:
        done = take_absence(game, player, start, end, now=at, reason=AWAY_REASON,
                            views_dir=request.views_dir, zone=zone)
    except (Refused, UsageError) as exc:
        raise _absence_refused(exc) from None
    text = _("You are away from {start} to {end}: the game's clock stops meanwhile, and every "
             "view says so. Send back when you return earlier.").format(
                 start=shown_time(done.start, zone), end=shown_time(done.end, zone))
    return Answer(_("you are away"), text + " " + left_words(done, lang))


def left_words(done: Away, lang: str | None) -> str:
    """What is left of ``done``'s player's allowance in the year of the absence, in ``lang``:
    its length (:func:`rebis_pbm.app.absences.absence_length`) and how many more absences,
    their noun inflected for the count (``ngettext``), or that no more absence is left."""
    from rebis_pbm.app.absences import absence_length
    from rebis_pbm.present.i18n import ngettext_for, translate
    year, count = done.start[:4], done.absences_left
    if count == 0:
        return _gettext(lang)(N_("Left in {year}: no more absence.")).format(year=year)
    n_ = ngettext_for(lang)
    return n_(
        "Left in {year}: {left} of absence, in at most {count} more absence.",
        "Left in {year}: {left} of absence, in at most {count} more absences.", count).format(
            year=year, left=translate(absence_length(done.seconds_left), lang), count=count)


def _back(request: Request) -> Answer:
    from rebis_pbm.app.absences import end_absence
    from rebis_pbm.record.deadlines import deadline_of, shown_time, time_zone_of
    game, player, lang, now = request.game, request.player, request.lang, request.now
    _ = _gettext(lang)
    # refused as it is: nothing was being logged ("you are not away ...", said to the player)
    record = end_absence(game, player, now=now, views_dir=request.views_dir)
    deadline = deadline_of(record)
    text = _("Welcome back: your absence has ended (every absence still to come is called "
             "off), and the game's clock runs again.")
    if deadline is not None:
        text += " " + _("The deadline of turn {turn} is {deadline}.").format(
            turn=len(record.moves) + 1,
            deadline=shown_time(deadline, time_zone_of(record, player)))
    return Answer(_("you are back"), text)


# The commands, in the order the help lists them. A command this game does not offer (away and
# back without an allowance) is answered "not available in this game".
COMMANDS: dict[str, Spec] = {
    "help": Spec(N_("this list"), _help),
    "view": Spec(N_("your view of the game, sent again"), _view),
    "moves": Spec(N_("your legal moves, each a move file ready to send"), _moves),
    "history": Spec(N_("every move so far, as anyone may know it"), _history),
    "resign": Spec(N_("leave the game: the bot makes your moves to the end"), _resign),
    "away": Spec(N_("away from a date to a date"), _away, _has_allowance),
    "back": Spec(N_("back before the end of an absence"), _back, _has_allowance),
}


def parse_command(line: str) -> Command | None:
    """The command in one line of text, or None when the line is not one: a word (letters and
    ``-``) with at most one more word (the game id) and no ``:`` (a move file's first line
    always has one, or starts with ``#``, ``---`` or ``{``); ``away`` takes up to four words
    (FROM TO, then the game id), whose times may hold ``:``. Either may end with the point of
    the history it answers, ``after D actions K``
    (:func:`rebis_pbm.record.witness.history_point`). The name may be no
    command's (:func:`carry_out` answers it with the help).

    >>> parse_command("back g1 after " + "0" * 64 + " actions 2")[:2]
    ('back', 'g1')
    >>> parse_command("away 2026-12-10 2026-12-17 g1").args
    ('2026-12-10', '2026-12-17')
    """
    point = POINT.fullmatch(line)
    if point is not None:
        command = _parse_words(point.group(1))
        return None if command is None else command._replace(
            line=line.strip(), after=point.group(2), actions=point.group(3))
    return _parse_words(line)


def _parse_words(line: str) -> Command | None:
    """:func:`parse_command` of a line without its point of history."""
    away = AWAY.fullmatch(line)
    if away is not None:  # away FROM TO [GAME]
        words = away.group(2).split()
        return Command("away", words[2] if len(words) == 3 else None, line.strip(),
                       tuple(words[:2]) if len(words) == 3 else tuple(words),
                       words=line.strip())
    found = LINE.fullmatch(line)
    if found is None:
        return None
    words = found.group(2).split()
    if len(words) > 1:
        return None
    return Command(found.group(1).lower(), words[0] if words else None, line.strip(),
                   words=line.strip())


def line_to_sign(record: Record, command: Command) -> str:
    """``command``'s line as a player with a key signs it now: its words, the game's id when
    they name none, then the point of the history
    (:func:`~rebis_pbm.record.witness.history_point`)."""
    words = command.words or command.line
    if command.game is None:
        words += f" {record.game}"
    return f"{words} {history_point(record)}"


def carried_out(record: Record, player: str, command: Command) -> int | None:
    """The index of the logged action that carried ``command`` out, when it names a point of
    the history (``after D actions K``) and the record's action K, logged at that very point,
    is the act it asks for (``away`` or ``back``, of ``player``): the same message judged
    again (its answer was lost: a run that failed after the act was logged) is answered as
    carried out, never as a refusal of what the record holds. None otherwise."""
    if (command.name not in POINTED or command.after is None or command.actions is None
            or not COUNT.fullmatch(command.actions)):
        return None
    index = int(command.actions)
    if index >= len(record.actions):
        return None
    act = record.actions[index]
    at = act.get("after")
    if not (act.get("action") == command.name and act.get("player") == player
            and isinstance(at, int) and 0 <= at <= len(record.moves)
            and record.prev_digest(at) == command.after):
        return None
    if command.name == "away":  # the very absence it asks for, logged by the command
        from rebis_pbm.record.deadlines import time_zone_of
        zone, logged = time_zone_of(record, player), str(act.get("at"))
        try:
            asked = (_when(command.args[0], zone, end=False, now=logged),
                     _when(command.args[1], zone, end=True, now=logged))
        except (Refused, IndexError):
            return None
        if act.get("reason") != AWAY_REASON or asked != (act.get("start"), act.get("end")):
            return None
    return index


def check_point(record: Record, command: Command) -> None:
    """A command that changes the record (``away``, ``back``, ``resign``) and names a point of
    the history is carried out only at that point (issue 27): anything logged since, a move or
    an act (its own first carrying out included), makes it stale, so that nobody who saw a
    player's signed command can have it carried out again. A command changing nothing answers
    at any point; a point of the wrong form is refused either way.

    Raises:
        Refused: a point that is not ``after D actions K`` (D 64 hexadecimal digits, K a
            count), or, for a changing command, not this record's point now (exit 1; the
            sentence gives the line to sign now).
    """
    if command.after is None:
        return
    now = history_point(record)
    if (not DIGEST.fullmatch(command.after) or command.actions is None
            or not COUNT.fullmatch(command.actions)):
        raise Refused(phrase=Phrase(N_(
            "the command's end \"after {after} actions {actions}\" is not a point of the "
            "history: it reads after D actions K, D the chain_sha256 of your view's witness "
            "(64 hexadecimal digits) and K the number of the referee's logged actions; sign "
            "the line \"{line}\""),
            {"after": command.after, "actions": command.actions or "",
             "line": line_to_sign(record, command)}))
    if command.name not in CHANGING or now == f"after {command.after} actions {command.actions}":
        return
    seen = next((k for k in range(len(record.moves) + 1)
                 if record.prev_digest(k) == command.after), None)
    if seen is None and (command.after == record.header_sha256
                         or any(j.chain_sha256 == command.after for j in record.joins)):
        seen = 0  # a point of the join phase
    if seen is None:
        raise Refused(phrase=Phrase(N_(
            "this command answers another history than game {game}'s (after {after}...): "
            "nothing changed; to have it carried out now, sign the line \"{line}\""),
            {"game": record.game, "after": command.after[:12],
             "line": line_to_sign(record, command)}))
    raise Refused(phrase=Phrase(N_(
        "this command answers move {seen} with {actions} logged actions, but the game is now "
        "at move {now} with {count}: a command that changes the game is carried out only at "
        "the point it names, once; nothing changed; to have it carried out now, sign the line "
        "\"{line}\""),
        {"seen": seen, "actions": command.actions, "now": len(record.moves),
         "count": len(record.actions), "line": line_to_sign(record, command)}))


def command_signature(record: Record, player: str, command: Command,
                      signature: bytes | None) -> None:
    """A command of a player who registered a key must be signed as their moves are: the
    armoured SSH signature (namespace ``rebis-pbm``) over the command line followed by a line
    feed, a line that names the game (so that a signed command cannot be sent again to another
    game) and, for a command that changes the record in a rebis-pbm/4 or later game, the point
    of the history it answers (:func:`~rebis_pbm.record.witness.history_point`, checked by
    :func:`check_point`: so that
    it cannot be carried out again in this game). Nothing to check for a player without a key.

    Raises:
        Refused: no signature, one that does not check, a line that names no game, or a
            changing command's line that names no point of the history.
    """
    from rebis_pbm.crypto.signatures import signed_by
    from rebis_pbm.crypto.sshsig_form import recorded_armour
    keys = record.player_keys(player)
    if not keys:
        return
    if signature is None:
        raise Refused(phrase=Phrase(N_(
            "{player} registered a key, so their commands must be signed (ssh-keygen -Y sign -f "
            "KEY -n rebis-pbm FILE, with FILE holding the command line); no signature came "
            "with it"), {"player": player}))
    if command.game is None:
        raise Refused(phrase=Phrase(N_(
            "a signed command names the game, so that it cannot be sent again to another game: "
            "write \"{name} {game}\", and sign that line"),
            {"name": command.name, "game": record.game}))
    if not signed_by((command.line + "\n").encode("utf-8"),
                     recorded_armour(signature) or "", keys):  # a mail's CRLF read as LF
        raise Refused(phrase=Phrase(N_(
            "the command's signature does not check against {player}'s key over the line "
            "\"{line}\" (sign a file holding exactly that line, with ssh-keygen -Y sign -n "
            "rebis-pbm)"), {"player": player, "line": command.line}))
    if command.name in POINTED and command.after is None and record.pins_history:
        raise Refused(phrase=Phrase(N_(
            "a signed {name} names the point of the history it answers, so that nobody who "
            "sees it can have it carried out again: sign the line \"{line}\" (its end is "
            "your latest view's: the chain_sha256 of its witness and the number of the "
            "referee's logged actions)"),
            {"name": command.name, "line": line_to_sign(record, command)}))


def carry_out(game: PathLike, player: str, command: Command, lang: str | None, *,
              now: str | None = None, views_dir: PathLike | None = None,
              measured: bool = False) -> Answer:
    """What ``command`` from ``player`` (registered, and its signature checked:
    :func:`command_signature`) gives them, in ``lang``: an unknown command the help; a command
    not available in this game a sentence saying so, then the help. ``now``: the time a change
    is logged at (``away``, ``back``, ``resign``; default the clock); ``views_dir``: where a
    change writes the views (default: beside the record); ``measured``: the answer is written
    where others can measure its length (a repository), so ``moves`` answers with
    :func:`moves_elsewhere` instead of the listing.

    Raises:
        Refused: the command names another game, or a point of the history where it cannot
            be carried out (:func:`check_point`), or cannot be carried out now (``moves`` when
            it is not the player's turn, ``resign`` as :func:`resign` refuses); nothing
            changed.
        UsageError, Failed: a command that changes the record in a game with a referee key,
            when the referee's key is not at hand (``REBIS_PBM_REFEREE_KEY``) or is another
            (:func:`rebis_pbm.app.signing.check_referee_key`): the referee's side, nothing
            changed and nothing answered. The referee's side raises as :func:`open_game`.
    """
    _ = _gettext(lang)
    record = open_game(game).record
    if command.game is not None and command.game != record.game:
        raise Refused(phrase=Phrase(N_("this command is for game {named}, but this is game "
                                       "{game}; nothing changed"),
                                    {"named": command.game, "game": record.game}))
    done = carried_out(record, player, command)
    if done is not None:
        return Answer(_("{name}: carried out already").format(name=command.name), _(
            "This command was carried out when it first came (the record's action {number}). "
            "Nothing more changed.").format(number=done + 1))
    check_point(record, command)
    if command.name in CHANGING and record.referee_key is not None:
        # the referee's key signs the act: without it the referee's side fails (the message
        # stays for the next run), never the player's command
        from rebis_pbm.app.signing import check_referee_key
        check_referee_key(record, None)
    spec = COMMANDS.get(command.name)
    if spec is None:
        return Answer(_("the commands"), _("\"{name}\" is not a command.").format(
            name=command.name) + "\n\n" + help_text(lang, record))
    if not _offered(spec, record):
        return Answer(_("{name}: not available").format(name=command.name),
                      _("The command {name} is not available in this game.").format(
                          name=command.name) + "\n\n" + help_text(lang, record))
    if measured and command.name == "moves":
        return moves_elsewhere(lang)
    return spec.handler(Request(game, player, lang, now, command.args, views_dir))
