"""Maildir folders: the messages waiting in one, marking them seen, and adding to the queue
``mail out`` sends from (the bytes each queued message is written as)."""

from __future__ import annotations

import io
import os
import secrets
from email.generator import BytesGenerator
from email.message import EmailMessage
from pathlib import Path


def maildir_new(folder: str | os.PathLike[str]) -> list[Path]:
    """The messages waiting in a Maildir's ``new/``, oldest first (delivery time, then name).

    Raises:
        ValueError: ``folder`` has no ``new/`` and ``cur/``: it is not a Maildir.
    """
    folder = Path(folder)
    if not (folder / "new").is_dir() or not (folder / "cur").is_dir():
        raise ValueError(f"{folder} is a folder but not a Maildir (it needs new/ and cur/ inside)")
    entries = [e for e in os.scandir(folder / "new") if e.is_file() and not e.name.startswith(".")]
    entries.sort(key=lambda e: (e.stat().st_mtime_ns, e.name))
    return [Path(e.path) for e in entries]


def maildir_unseen(folder: str | os.PathLike[str]) -> list[Path]:
    """The messages not yet handled in a Maildir: every one in ``new/``, and those in ``cur/``
    without the Seen flag (``S`` in the info part after ``:2,``), which is where an IMAP server
    or a mail client moves a message it has shown but nobody has read; oldest first.

    Raises:
        ValueError: ``folder`` has no ``new/`` and ``cur/``: it is not a Maildir.
    """
    import mailbox

    fresh = maildir_new(folder)
    colon = mailbox.Maildir.colon
    unseen = []
    for entry in os.scandir(Path(folder) / "cur"):
        if not entry.is_file() or entry.name.startswith("."):
            continue
        _, _, info = entry.name.partition(colon)
        flags = info[2:] if info.startswith("2,") else ""
        if "S" not in flags:
            unseen.append(entry)
    return sorted(fresh + [Path(e.path) for e in unseen],
                  key=lambda p: (_mtime(p), p.name))


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except FileNotFoundError:
        return 0


def mark_seen(path: Path) -> Path:
    """Move a message from ``new/`` to ``cur/`` with the Seen flag, as the Maildir format has
    every reader do (a rename: atomic, so a message is in exactly one of the two)."""
    import mailbox

    colon = mailbox.Maildir.colon
    base, _, info = path.name.partition(colon)  # a delivery agent or client may have set flags
    flags = set(info[2:]) if info.startswith("2,") else set()
    target = path.parent.parent / "cur" / f"{base}{colon}2,{''.join(sorted(flags | {'S'}))}"
    os.rename(path, target)
    return target


def queue(folder: str | os.PathLike[str], messages: list[EmailMessage]) -> None:
    """Add ``messages``, in order, to the Maildir ``folder`` (created if missing): the queue
    ``mail out`` sends from. Each file appears in ``new/`` whole (written in ``tmp/`` first), and
    readable by its owner only (mode 0600: a message holds a player's private view)."""
    import mailbox

    mask = os.umask(0o077)  # the files are created 0600, never readable by others for a moment
    try:
        box = mailbox.Maildir(os.fspath(folder), create=True)
        for msg in messages:
            _choose_boundaries(msg)
            box.add(as_bytes(msg))
    finally:
        os.umask(mask)


class _Generator(BytesGenerator):
    """The email package's writer of a message's bytes, writing each text part (a view, the
    picture's HTML in base64, an attachment) in one piece where the stock one writes it line by
    line, turning each line end into the policy's: with LF line ends already and a policy that
    writes LF (a Maildir's), the bytes are the same (tested), and a move's five messages with
    their pictures are written in about 40 M instructions less."""

    def _write_lines(self, lines: str) -> None:
        # _NL and _write_lines: the stdlib generator's own hooks, which typeshed leaves out
        if self._NL == "\n" and "\r" not in lines:  # type: ignore[attr-defined]
            self.write(lines)
        else:
            # CR or CRLF to turn into the policy's line end
            super()._write_lines(lines)  # type: ignore[misc]


def as_bytes(msg: EmailMessage) -> bytes:
    """``msg`` as the queue holds it: the bytes ``mailbox.Maildir.add(msg)`` writes (the email
    package's generator with the message's policy, headers unfolded as mailbox asks, no
    ``From`` mangling; tested against it)."""
    out = io.BytesIO()
    _Generator(out, False, 0).flatten(msg)
    return out.getvalue()


def _choose_boundaries(msg: EmailMessage) -> None:
    """Give each multipart of ``msg`` that has none its boundary: ``=_TOKEN_N``, N counting the
    message's multiparts from 1, TOKEN 128 random bits drawn once per process (:func:`_token`).
    No text holds a random token by chance; a message that holds it anyway (text made to, by
    someone who saw an earlier message of the run) gets a token drawn for it alone, so no
    part can end a multipart early.

    Left to the email package, the writer draws a shorter boundary and searches the whole
    message for it with a regular expression (about 13 M instructions a message with a
    picture). One token for a run's messages makes each multipart's ``Content-Type`` the same
    text in every message, parsed once (``_Headers``), where a token a multipart had it parsed
    ten times a move."""
    multiparts = [part for part in msg.walk()
                  if part.is_multipart() and part.get_boundary() is None]
    if not multiparts:
        return
    token = _token()
    if _holds(msg, token):
        token = secrets.token_hex(16)
    for count, part in enumerate(multiparts, 1):
        part.set_boundary(f"=_{token}_{count}")


_TOKENS: list[str] = []  # the token of this process's boundaries, once drawn


def _token() -> str:
    """The random token of this process's MIME boundaries (128 bits, 32 hex digits)."""
    if not _TOKENS:
        _TOKENS.append(secrets.token_hex(16))
    return _TOKENS[0]


def _holds(msg: EmailMessage, token: str) -> bool:
    """Does any header or body of ``msg``'s parts contain ``token``?"""
    for part in msg.walk():
        if any(token in str(value) for value in part.values()):
            return True
        if not part.is_multipart() and token in part.get_payload():
            return True
    return False

