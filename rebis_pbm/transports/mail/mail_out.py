"""``mail out``: sending a game's queue (SMTP, sendmail or ``.eml`` files), setting aside what
a server refuses for good in the queue's ``failed/``, and ``mail retry``, which queues it again."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from rebis_pbm import app as referee
from rebis_pbm.errors import Failed
from rebis_pbm.files.atomic import write_atomic
from rebis_pbm.files.lock import locked
from rebis_pbm.files.names import default_queue
from rebis_pbm.present.views import counted
from rebis_pbm.transports.mail.maildir import maildir_new, mark_seen, queue
from rebis_pbm.transports.mail.policy import parse_message
from rebis_pbm.transports.mail.send import Refusal, SmtpServer, send_sendmail, send_smtp

FAILED = "failed"  # in the queue folder: the messages a server refused for good


def _smtp_reason(exc: BaseException) -> str:
    import smtplib

    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return "it refused " + ", ".join(exc.recipients)
    if isinstance(exc, smtplib.SMTPResponseException):
        text = exc.smtp_error.decode("utf-8", "replace") if isinstance(exc.smtp_error, bytes) \
            else str(exc.smtp_error)
        return f"it answered {exc.smtp_code} {text}"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


class Sent(NamedTuple):
    """What :func:`send_queue` did: ``sent`` messages, ``kept`` (refused for now: 4xx, left in
    the queue for the next run), ``set_aside`` (refused for good: 5xx, moved to the queue's
    ``failed/``), and a line per refusal in ``notes``."""

    sent: int
    kept: int = 0
    set_aside: int = 0
    notes: tuple[str, ...] = ()


def send_queue(queue_dir: Path, *, outbox: Path | None = None, server: SmtpServer | None = None,
               sendmail: str | None = None) -> Sent | None:
    """Send the queued messages through ``server`` (a
    :class:`~rebis_pbm.transports.mail.send.SmtpServer`), hand them to the local mail system
    (``sendmail``, the path of its sendmail program), or write each as a ``.eml`` file in
    ``outbox`` (mode 0600: a message holds a player's private view). A message leaves the
    queue once sent (it is kept in the queue's ``cur/``). A message the server refuses for now
    (a 4xx reply) stays queued for the next run; one it refuses for good (5xx: an address that
    does not exist) is set aside in the queue's ``failed/``, and a report to the referee (the
    message's sender) is queued, so one bad address blocks nobody (:func:`retry_failed` queues
    it again). Returns what was done, or None when the queue does not exist yet.

    Raises:
        Failed: the server could not be reached or refused the session (or sendmail failed):
            the messages not yet sent stay queued (exit 2).
    """
    if not queue_dir.exists():
        return None
    with locked(queue_dir):  # two runs at once must not send a message twice
        try:
            pending = maildir_new(queue_dir)
        except ValueError as exc:
            raise Failed(str(exc)) from None
        done: list[Path] = []
        kept: list[str] = []
        aside: list[str] = []

        def sent(path: Path) -> None:
            mark_seen(path)
            done.append(path)

        def refused(path: Path, refusal: Refusal) -> None:
            if refusal.permanent:
                aside.append(_set_aside(queue_dir, path, refusal))
            else:
                kept.append(f"{_recipients(path)}: refused for now ({refusal}); it stays "
                            f"queued for the next run")

        if outbox is not None:
            outbox.mkdir(parents=True, exist_ok=True, mode=0o700)
            for path in pending:
                write_atomic(outbox / f"{path.name}.eml", path.read_bytes(), mode=0o600)
                sent(path)
            return Sent(len(done))
        where = sendmail
        try:
            if sendmail is not None:
                send_sendmail(sendmail, pending, sent)
            else:
                assert server is not None
                where = f"{server.host}:{server.port}"
                send_smtp(server, pending, sent, refused)
        except OSError as exc:  # smtplib's and ssl's errors are OSErrors too
            left = len(pending) - len(done) - len(aside)
            raise Failed(f"could not send through {where}: {_smtp_reason(exc)}; "
                         f"{counted(len(done), 'message')} sent, {left} still queued (run mail out "
                         f"again)") from None
    return Sent(len(done), len(kept), len(aside), tuple(kept + aside))


def _recipients(path: Path) -> str:
    msg = parse_message(path.read_bytes(), headers_only=True)
    return str(msg.get("To", "?"))


def _set_aside(queue_dir: Path, path: Path, refusal: Refusal) -> str:
    """Move a message refused for good to ``failed/`` and queue a report to its sender (the
    referee); returns the line that tells it."""
    from email.message import EmailMessage

    failed = queue_dir / FAILED
    failed.mkdir(exist_ok=True, mode=0o700)
    os.rename(path, failed / path.name)
    msg = parse_message((failed / path.name).read_bytes(), headers_only=True)
    to, sender = str(msg.get("To", "?")), str(msg.get("From", ""))
    line = (f"{to}: refused for good ({refusal}); the message is set aside in {failed}/ as "
            f"{path.name}")
    senders = msg["From"].addresses if msg["From"] is not None else ()
    if senders and senders[0].addr_spec not in to:  # never a report about a report
        report = EmailMessage()
        report["From"] = sender
        report["To"] = sender
        report["Subject"] = f"rebis-pbm: a message to {to} could not be delivered"
        report["Auto-Submitted"] = "auto-generated"
        report.set_content(
            f"The mail server refused for good the message \"{msg.get('Subject', '')}\" to "
            f"{to}:\n\n    {refusal}\n\nIt is kept in {failed}/{path.name}. Check the "
            f"player's address; `rebis-pbm mail views GAME --player NAME` sends their view "
            f"again.\n")
        queue(queue_dir, [report])
        line += "; a report to the referee is queued"
    return line


def send_queues(folder: str | os.PathLike[str], *, outbox: Path | None = None,
                server: SmtpServer | None = None, sendmail: str | None = None) -> Sent:
    """:func:`send_queue` for every game of ``folder`` (``mail out`` for a shard): each game's
    queue beside its record, in the order of :func:`rebis_pbm.app.record_paths`; returns the
    sums. ``outbox``, ``server``, ``sendmail``: as for :func:`send_queue`.

    Raises:
        InputError: no record in the folder (exit 2).
        Failed: as :func:`send_queue`; the queues after it are not sent (exit 2).
    """
    total = Sent(0)
    for path in referee.record_paths([folder]):
        done = send_queue(default_queue(path), outbox=outbox, server=server, sendmail=sendmail)
        if done is not None:
            total = Sent(total.sent + done.sent, total.kept + done.kept,
                         total.set_aside + done.set_aside, total.notes + done.notes)
    return total


def retry_failed(queue_dir: Path) -> int:
    """Queue again every message set aside in the queue's ``failed/`` (``mail retry``: the
    referee corrected an address, or the server's refusal was a mistake), oldest first, under
    the queue's lock; the next ``mail out`` sends them. Returns how many were queued again (0:
    none set aside, or no queue yet).

    A message keeps its recipient: for a player whose address was wrong, ``mail views GAME
    --player NAME`` after ``replace-player --address`` sends their view to the new one instead.
    """
    failed = queue_dir / FAILED
    if not failed.is_dir():
        return 0
    with locked(queue_dir):  # not while a mail out sends from it
        entries = sorted((e for e in os.scandir(failed) if e.is_file()
                          and not e.name.startswith(".")),
                         key=lambda e: (e.stat().st_mtime_ns, e.name))
        for entry in entries:
            os.rename(entry.path, queue_dir / "new" / entry.name)  # one folder: atomic
    return len(entries)


def retry_failed_all(folder: str | os.PathLike[str]) -> int:
    """:func:`retry_failed` for every game of ``folder`` (a shard); returns the sum.

    Raises:
        InputError: no record in the folder (exit 2).
    """
    return sum(retry_failed(default_queue(path)) for path in referee.record_paths([folder]))

