"""Turn notices by webhook: queued beside the record, posted, retried (docs/league.md).

:func:`queue_turn_notice` is what a command that changes a game calls once the move is recorded
(``apply``, ``mail in``, ``git apply``, ``tick``): when a turn began that no notice was queued
for, or its deadline nears (once per turn), it queues one notice per webhook of the game
(:mod:`.settings`) that hears of that player. :func:`send_notices` (``rebis-pbm notify send``)
posts the queue. Like the mail queue, a post never fails a move: a notice that could not be
posted stays queued and is posted again at the next send; one the service refuses for good (an
HTTP 4xx other than 408 and 429: the webhook was deleted, the URL is wrong) is set aside in the
queue's ``failed/``, from where ``notify send --retry-failed`` takes it back.

The queue is a folder beside the record, ``game.notifyq/`` (mode 0700): one JSON file per
notice (mode 0600: it names the URL, a secret), posted in the order of their names, and the
files ``noticed-turn`` and ``reminded-turn``, the last turn a turn notice, and a deadline
notice, were queued for (a crash between the notice and its mark queues it twice, never loses
it). Only the machine's network is used, with a short timeout; no redirect is followed (a body
goes to the URL given, nowhere else).
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import NamedTuple, TypedDict

from rebis_pbm.errors import Failed, RebisError, one_line
from rebis_pbm.files.atomic import PathLike, make_folder, write_atomic
from rebis_pbm.files.lock import locked
from rebis_pbm.transports.webhook.payloads import DEADLINE, TURN, Notice, last_line, request
from rebis_pbm.transports.webhook.settings import Target, notify_path, read_targets, shown_url

QUEUE_SUFFIX = ".notifyq"  # game.yaml -> game.notifyq/
NOTICED_STATE = "noticed-turn"  # the last turn a turn notice was queued for
REMINDED_STATE = "reminded-turn"  # the last turn a deadline notice was queued for
FAILED = "failed"  # the notices refused for good
TIMEOUT = 5.0  # seconds to wait for a webhook's answer
USER_AGENT = "rebis-pbm"


class Queued(TypedDict):
    """A queued notice's file: where and how to post it, and what it is."""

    url: str
    method: str
    body: str
    fmt: str
    game: str
    turn: int
    player: str
    notice: str
    attempts: int


class Posted(NamedTuple):
    """What :func:`send_notices` did: notices ``sent``, ``kept`` (to post again at the next
    send), ``set_aside`` (refused for good: in ``failed/``), and a line per failure in
    ``notes`` (never the URL's token: its host only)."""

    sent: int = 0
    kept: int = 0
    set_aside: int = 0
    notes: tuple[str, ...] = ()

    def __add__(self, other: object) -> Posted:
        if not isinstance(other, Posted):
            return NotImplemented
        return Posted(self.sent + other.sent, self.kept + other.kept,
                      self.set_aside + other.set_aside, self.notes + other.notes)


def notify_queue(game: PathLike) -> Path:
    """``game.yaml`` -> ``game.notifyq/`` beside it: the folder of notices waiting to be posted.

    >>> str(notify_queue("league/g1/game.yaml"))
    'league/g1/game.notifyq'
    """
    path = Path(game)
    stem = path.name[:-5] if path.name.endswith(".yaml") else path.name
    return path.with_name(stem + QUEUE_SUFFIX)


def _turn_of(queue_dir: Path, name: str) -> int | None:
    try:
        return int((queue_dir / name).read_text().strip())
    except (FileNotFoundError, ValueError):
        return None


def queue_turn_notice(game: PathLike, *, now: str | None = None, post: bool = False,
                      timeout: float = TIMEOUT) -> int:
    """Queue the notices due for the game whose record is ``game``, once each: when the turn
    to play is one no notice was queued for (it began since), a turn notice; else, when its
    deadline nears at ``now`` (ISO 8601, default the clock; within 24 h or a quarter of the
    deadline: :func:`rebis_pbm.record.deadlines.reminder_due`), a deadline notice. Each goes
    to every webhook of the player to move and every webhook of the whole game. Nothing is
    due in a fair deal's join phase or once the game is over, and nothing at all when the game
    has no webhooks (no ``game.notify.yaml``: then not even the queue is made). With ``post``,
    the queue is posted at once (:func:`send_notices`; what fails stays queued). Returns how
    many notices were queued.

    Call it after the move is recorded, outside the record's lock or inside it (it takes the
    queue's lock only). It never posts unless asked, and a post that fails never raises; a
    caller whose move is recorded reports an error it raises as a note, not as the move's
    failure.

    Raises:
        InputError: the record or the webhooks' file cannot be read, or the file is another
            game's (exit 2); CorruptRecord: the record fails verification (exit 3); a
            FileError when the queue cannot be written.
    """
    from rebis_pbm.app import public_game_state, record_view
    from rebis_pbm.record.deadlines import deadline_of, now_text, reminder_due

    if not os.path.lexists(notify_path(game)):  # no webhooks: not even the record is read
        return 0
    record, replay = public_game_state(game)
    targets = read_targets(game, record.game)
    if not targets:
        return 0
    state = replay.state
    if state is None or state.finished or record.abandoned(state):
        return 0
    player = state.player_to_move
    assert player is not None  # a game in play has a player to move
    queue_dir = notify_queue(game)
    make_folder(queue_dir, what="the notices' queue folder")
    os.chmod(queue_dir, 0o700)
    with locked(queue_dir):
        deadline = deadline_of(record)
        near = deadline is not None and reminder_due(record, now_text(now))
        if _turn_of(queue_dir, NOTICED_STATE) != state.turn:
            kind = TURN
        elif near and _turn_of(queue_dir, REMINDED_STATE) != state.turn:
            kind = DEADLINE
        else:
            kind = None
        queued = 0
        if kind is not None:
            notice = Notice(kind, record.game, state.turn, player, deadline,
                            last_line(record_view(record, replay, None)))
            heard = [t for t in targets if t.player in (None, player)]
            for index, target in enumerate(heard):
                _queue_one(queue_dir, notice, target, index)
            queued = len(heard)
            write_atomic(queue_dir / NOTICED_STATE, f"{state.turn}\n", mode=0o600)
            if near:  # a turn notice names its deadline: no second notice for it
                write_atomic(queue_dir / REMINDED_STATE, f"{state.turn}\n", mode=0o600)
    if post:  # another send holding the queue, or a stray file: posted at a later send
        with contextlib.suppress(RebisError):
            send_notices(game, timeout=timeout)
    return queued


def _queue_one(queue_dir: Path, notice: Notice, target: Target, index: int) -> None:
    """Write one notice to one webhook into the queue (its name sorts by turn, then kind)."""
    import hashlib
    tag = hashlib.sha256(target.url.encode()).hexdigest()[:8]
    txn = f"rebis-{notice.game}-{notice.turn}-{notice.kind}-{index}-{tag}"
    req = request(notice, target.fmt, target.url, txn)
    item: Queued = {"url": req.url, "method": req.method, "body": req.body.decode("utf-8"),
                    "fmt": target.fmt, "game": notice.game, "turn": notice.turn,
                    "player": notice.player, "notice": notice.kind, "attempts": 0}
    name = f"{notice.turn:06d}-{'1' if notice.kind == DEADLINE else '0'}{notice.kind}-" \
           f"{index:03d}-{tag}.json"
    write_atomic(queue_dir / name, json.dumps(item, ensure_ascii=False, indent=1) + "\n",
                 mode=0o600)


class _Answer(NamedTuple):
    ok: bool
    permanent: bool
    why: str


def post(method: str, url: str, body: bytes, timeout: float = TIMEOUT) -> _Answer:
    """Make one request with ``urllib`` (no redirect followed, ``timeout`` seconds); never
    raises for the network or the answer: says whether it was taken (2xx), and if not whether
    for good (a 3xx or 4xx answer other than 408 and 429) and why."""
    import urllib.error
    import urllib.request

    class _NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None  # the 3xx answer is reported as it is

    opener = urllib.request.build_opener(_NoRedirect)
    req = urllib.request.Request(url, data=body, method=method, headers={
        "Content-Type": "application/json; charset=utf-8", "User-Agent": USER_AGENT})
    try:
        with opener.open(req, timeout=timeout) as answer:
            answer.read(65536)
            return _Answer(True, False, f"HTTP {answer.status}")
    except urllib.error.HTTPError as exc:
        exc.close()
        permanent = 300 <= exc.code < 500 and exc.code not in (408, 429)
        return _Answer(False, permanent, one_line(f"HTTP {exc.code} {exc.reason}"))
    except (urllib.error.URLError, OSError, ValueError) as exc:  # refused, timeout, DNS
        reason = getattr(exc, "reason", None) or exc
        return _Answer(False, False, one_line(str(reason) or type(exc).__name__))


def send_notices(game: PathLike, *, timeout: float = TIMEOUT,
                 retry_failed: bool = False) -> Posted:
    """Post the game's queued notices in order (``rebis-pbm notify send``); each one taken
    leaves the queue, one not taken for now stays for the next send (its attempts counted),
    one refused for good goes to ``failed/``. ``retry_failed``: first put the notices of
    ``failed/`` back in the queue (after the referee mended the URL, the set-aside notices
    still post to the URL they were queued with). Never raises for a post that fails.

    Raises:
        Failed: the queue cannot be read (exit 2); Busy when another send holds it.
    """
    queue_dir = notify_queue(game)
    if not queue_dir.is_dir():
        return Posted()
    done = Posted()
    with locked(queue_dir):
        failed = queue_dir / FAILED
        if retry_failed and failed.is_dir():
            for path in sorted(failed.glob("*.json")):
                os.replace(path, queue_dir / path.name)
        for path in sorted(queue_dir.glob("*.json")):
            done += _send_one(queue_dir, path, timeout)
    return done


def _send_one(queue_dir: Path, path: Path, timeout: float) -> Posted:
    try:
        item: Queued = json.loads(path.read_text(encoding="utf-8"))
        url, method, body = item["url"], item["method"], item["body"].encode("utf-8")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise Failed(f"{path} is not a notice rebis-pbm queued; move it out of {queue_dir}/ "
                     f"and run notify send again") from None
    answer = post(method, url, body, timeout)
    where = f"{item.get('notice', 'notice')} of turn {item.get('turn', '?')} to " \
            f"{shown_url(url)}"
    if answer.ok:
        path.unlink()
        return Posted(sent=1)
    if answer.permanent:
        failed = queue_dir / FAILED
        failed.mkdir(mode=0o700, exist_ok=True)
        os.replace(path, failed / path.name)
        return Posted(set_aside=1, notes=(
            f"{where}: refused for good ({answer.why}); set aside in {failed}/ (check the URL, "
            f"then notify send --retry-failed)",))
    item["attempts"] = int(item.get("attempts", 0)) + 1
    write_atomic(path, json.dumps(item, ensure_ascii=False, indent=1) + "\n", mode=0o600)
    return Posted(kept=1, notes=(f"{where}: not posted for now ({answer.why}); it stays "
                                 f"queued for the next send",))


def send_all(games: list[str], *, timeout: float = TIMEOUT,
             retry_failed: bool = False) -> Posted:
    """:func:`send_notices` for each of ``games`` (records), summed. A game whose queue cannot
    be read is a note, and the others are still sent."""
    total = Posted()
    for game in games:
        try:
            total += send_notices(game, timeout=timeout, retry_failed=retry_failed)
        except RebisError as exc:
            total += Posted(notes=(one_line(str(exc)),))
    return total
