"""Handing queued message files to a mail server (SMTP) or the local sendmail program."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from rebis_pbm.transports.mail.policy import MailError, parse_message, sender_address

if TYPE_CHECKING:  # smtplib is imported when a message is sent
    import smtplib

SentHook = Callable[[Path], None]  # told each message file passed on
RefusedHook = Callable[[Path, "Refusal"], None]  # told each message file a server refused


class SmtpServer(NamedTuple):
    """Where ``mail out --smtp`` sends: ``host``, ``port``, whether to STARTTLS first, and the
    login (``user``, ``password``; no login when ``user`` is None)."""

    host: str
    port: int = 25
    starttls: bool = False
    user: str | None = None
    password: str | None = None
    timeout: float = 60.0
    smtps: bool = False  # implicit TLS from the first byte (port 465), instead of STARTTLS


def parse_server(text: str) -> tuple[str, int]:
    """``HOST[:PORT]`` (``[::1]:25`` for IPv6) -> ``(host, port)``; the port defaults to 25.

    Raises:
        ValueError: an empty host, or a port that is not a number from 1 to 65535.
    """
    host, port = text, "25"
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        if rest:
            port = rest.removeprefix(":")
    elif text.count(":") == 1:
        host, port = text.split(":")
    if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"{text!r}: write HOST or HOST:PORT, e.g. smtp.example.org:587")
    return host, int(port)


class Refusal(Exception):
    """The server refused one message: ``code`` (the SMTP reply code; 5xx is permanent, 4xx is
    "try again later") and ``text``. Other messages of the session are not affected."""

    def __init__(self, code: int, text: str):
        super().__init__(f"{code} {text}")
        self.code, self.text = code, text

    @property
    def permanent(self) -> bool:
        return self.code >= 500


def _refusal(exc: smtplib.SMTPRecipientsRefused | smtplib.SMTPResponseException) -> Refusal:
    import smtplib

    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _ in exc.recipients.values()] or [550]
        again = [code for code in codes if code < 500]  # any 4xx: try again later
        texts = [_text(text) for code, text in exc.recipients.values()]
        return Refusal(again[0] if again else codes[0], "; ".join(texts))
    return Refusal(exc.smtp_code, _text(exc.smtp_error))


def _text(value: bytes | str) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def send_smtp(server: SmtpServer, paths: list[Path], sent: SentHook,
              refused: RefusedHook | None = None) -> None:
    """Send the message files ``paths`` in order through one SMTP session, each as the bytes the
    queue holds (:func:`wire_bytes`); after each one the server accepted, call ``sent(path)``;
    after each one it refused (a reply to the sender, a recipient or the data), call
    ``refused(path, Refusal)`` and go on with the next (without ``refused``, the refusal is
    raised as the smtplib exception).

    Raises:
        smtplib.SMTPException, ssl.SSLError, OSError: the server could not be reached, or
            refused the session (login, TLS): the messages not yet passed on are not sent.
    """
    import smtplib
    import socket
    import ssl

    # local_hostname: our own name for EHLO, without the DNS look-up smtplib would make.
    local = socket.gethostname() or "localhost"
    session: smtplib.SMTP
    if server.smtps:
        session = smtplib.SMTP_SSL(server.host, server.port, timeout=server.timeout,
                                   local_hostname=local, context=ssl.create_default_context())
    else:
        session = smtplib.SMTP(server.host, server.port, timeout=server.timeout,
                               local_hostname=local)
    with session as smtp:
        if server.starttls:
            smtp.starttls(context=ssl.create_default_context())
        if server.user is not None:
            smtp.login(server.user, server.password or "")
        for path in paths:
            try:
                data = path.read_bytes()
                msg = parse_message(data, headers_only=True)
                sender, to = _envelope_sender(msg), recipients(msg)
                # SMTPUTF8 for an address beyond ASCII, as smtplib's send_message asks for it
                international = not all(address.isascii() for address in [sender, *to])
                smtp.sendmail(sender, to, wire_bytes(data, msg),
                              mail_options=["SMTPUTF8", "BODY=8BITMIME"] if international else [])
            except (smtplib.SMTPRecipientsRefused, smtplib.SMTPSenderRefused,
                    smtplib.SMTPDataError) as exc:
                if refused is None:
                    raise
                with contextlib.suppress(smtplib.SMTPException):
                    smtp.rset()
                refused(path, _refusal(exc))
                continue
            sent(path)


def wire_bytes(data: bytes, headers: EmailMessage) -> bytes:
    """A queued message's bytes as sent: the queue's own, line ends made CRLF (SMTP's; smtplib
    dot-stuffs them), so that no header is folded again on the way out. Folded again by the
    email package (smtplib's ``send_message``), two encoded words of a French subject lost the
    space between them (``n'a pas étéappliqué``). A queued message with a ``Bcc`` (rebis-pbm
    writes none) is written again without it, as ``send_message`` would, so no reader sees it.
    ``headers``: ``data``'s headers, parsed."""
    if headers["Bcc"] is not None or headers["Resent-Bcc"] is not None:
        from rebis_pbm.transports.mail.maildir import as_bytes

        whole = parse_message(data)
        del whole["Bcc"], whole["Resent-Bcc"]
        data = as_bytes(whole)
    return re.sub(rb"\r?\n", b"\r\n", data)


def _envelope_sender(msg: EmailMessage) -> str:
    """The envelope sender (MAIL FROM) of a queued message: its From address (the referee's),
    or the null sender when it has none that can be read."""
    try:
        return sender_address(msg)
    except MailError:
        return ""


def recipients(msg: EmailMessage) -> list[str]:
    """Whom ``mail out`` sends a queued message to: the addresses of its ``To`` alone. rebis-pbm
    writes each message for its reader in ``To``; a ``Cc`` or ``Bcc`` in a queued message (a
    header a sender's text could have slipped in) never makes a recipient of anyone."""
    header = msg["To"]
    return [a.addr_spec for a in (header.addresses if header is not None else ())]


def send_sendmail(program: str, paths: list[Path], sent: SentHook) -> None:
    """Hand the message files ``paths`` in order to the local mail system's ``sendmail``
    program (``program -i -f FROM -- RECIPIENTS``, the message on its standard input), which
    queues, retries and bounces them itself; after each one it took, call ``sent(path)``.

    Raises:
        OSError: the program cannot be run, or it failed (its exit code and first line of
            error output are in the message); the messages not yet passed on are not sent.
    """
    import subprocess

    for path in paths:
        data = path.read_bytes()
        msg = parse_message(data)
        sender = sender_address(msg)
        done = subprocess.run([program, "-i", "-f", sender, "--", *recipients(msg)],
                              input=data, capture_output=True, timeout=300)
        if done.returncode != 0:
            said = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise OSError(f"{program} exited with {done.returncode}"
                          + (f" ({said[0]})" if said else ""))
        sent(path)
