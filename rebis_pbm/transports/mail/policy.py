"""The email policy every message is read and written with, and what is read of any message
(its sender, whether a robot sent it, an address's form).

Built on the standard library only (``email`` with ``email.policy.default``, its headers made
once: :data:`POLICY`); nothing in this package parses mail by hand. docs/mail.md is the page
for players and referees.
"""

from __future__ import annotations

from email import policy
from email.errors import HeaderParseError, MessageError
from email.headerregistry import Address, BaseHeader, HeaderRegistry
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.policy import EmailPolicy
from typing import Any

from rebis_pbm.present.i18n import Phrase

MAIL_MAX_BYTES = 10 * 1024 * 1024  # a message larger than this is refused unread
# Parts inside parts a message may nest: deeper, the email package's parser and every walk over
# the parts would recurse past Python's limit (a stranger's 1,200 nested multipart/mixed did).
# Real mail nests a few levels (a forwarded message inside an alternative inside a mixed).
MAX_NESTING = 64


class _Headers(HeaderRegistry):
    """``email.policy.default``'s header factory, with each header's class made once and each
    header text parsed once.

    ``HeaderRegistry`` makes a new class (``type(...)``) for every header set or read, and
    again to look up how many a message may hold, and parses every text anew: most of the cost
    of composing a message, whose headers the five messages of a move largely share
    (``MIME-Version``, ``From``, ``Content-Type``, ``Auto-Submitted`` ...). A header is a
    read-only ``str`` subclass, so one object serves every message with the same name and text:
    the headers, and the bytes written, are ``email.policy.default``'s.
    """

    KEPT = 1024  # header texts kept (a shard's mail in composes messages for many games)

    def __init__(self) -> None:
        super().__init__()
        self._classes: dict[str, type[BaseHeader]] = {}
        self._made: dict[tuple[object, ...], BaseHeader] = {}

    def __getitem__(self, name: str) -> type[BaseHeader]:
        cls = self._classes.get(name.lower())
        if cls is None:
            made = super().__getitem__(name)
            cls = self._classes[name.lower()] = _folds_kept(made)
        return cls

    def __call__(self, name: str, value: Any) -> BaseHeader:
        kind = type(value)
        if kind is str:
            key: tuple[object, ...] = (name, value)
        elif kind is Address:
            # An address header made of one Address is parsed from the Address's text (its
            # display name quoted as needed): equal texts, equal headers. The referee's From
            # is the same in every message of a run, each player's To in every message to them.
            key = (name, Address, str(value))
        else:  # a datetime, a list of addresses: a header of its own
            return super().__call__(name, value)
        header = self._made.get(key)
        if header is None:
            if len(self._made) >= self.KEPT:
                self._made.clear()
            header = self._made[key] = super().__call__(name, value)
        return header


def _folds_kept(made: type[BaseHeader]) -> type[BaseHeader]:
    """The header class ``made`` whose ``fold`` is kept by what it depends on (the line length,
    the line end, UTF-8 or not): one header object serves every message that shares its text
    (``_Headers``), and folding it again for each (its parse tree refolded) was a fifth of
    writing a move's messages. The same text as ``made.fold`` (tested with the mails' bytes)."""

    def fold(self: BaseHeader, *, policy: EmailPolicy) -> str:
        key = (policy.max_line_length, policy.linesep, policy.utf8)
        kept: dict[tuple[int | None, str, bool], str] = self.__dict__.setdefault("_folded", {})
        folded = kept.get(key)
        if folded is None:
            folded = kept[key] = made.fold(self, policy=policy)
        return folded

    return type(made.__name__, (made,), {"fold": fold})


# Every message read or composed here: email.policy.default, with the header factory above.
POLICY = policy.default.clone(header_factory=_Headers())
_parser = BytesParser(policy=POLICY)


class MailError(ValueError):
    """No move can be taken out of a message; ``str(e)`` is one sentence for its sender, and
    ``phrase`` the same sentence to translate (:mod:`rebis_pbm.present.i18n`), or None."""

    def __init__(self, message: str | Phrase):
        super().__init__(str(message))
        self.phrase = message if isinstance(message, Phrase) else None


def check_address(text: str) -> str:
    """``text`` as a bare e-mail address (``name@example.org``), surrounding spaces removed.

    Raises:
        ValueError: not a single address with a local part and a domain (a display name or
            angle brackets count as wrong: write only the address).
    """
    text = text.strip()
    try:
        address = Address(addr_spec=text)
    except (ValueError, IndexError, HeaderParseError):
        address = None
    if address is None or address.addr_spec != text or not address.username \
            or not address.domain:
        raise ValueError(f"{text!r} is not an e-mail address; write it as name@example.org")
    return text


def parse_message(data: bytes, *, headers_only: bool = False) -> EmailMessage:
    """An RFC 5322 message from its bytes (:data:`POLICY`; for other junk the parser records
    defects instead of raising).

    Raises:
        MailError: parts nested more than :data:`MAX_NESTING` deep (no move or reply is read
            out of such a message: it is set aside).
    """
    try:
        msg = _parser.parsebytes(data, headersonly=headers_only)
    except RecursionError:  # the parser recurses once a level: far deeper than MAX_NESTING
        msg = None
    if msg is None or _nesting(msg) > MAX_NESTING:
        raise MailError(f"the message's parts are nested more than {MAX_NESTING} deep, "
                        f"too deep to read")
    return msg


def _nesting(msg: EmailMessage) -> int:
    """How deep the parts of ``msg`` nest (0: a single part), counted without recursion."""
    deepest = 0
    stack: list[tuple[Message, int]] = [(msg, 0)]
    while stack:
        part, depth = stack.pop()
        deepest = max(deepest, depth)
        if part.is_multipart() and depth <= MAX_NESTING:  # a multipart, or message/rfc822
            stack.extend((inner, depth + 1) for inner in part.get_payload()
                         if isinstance(inner, Message))
    return deepest


def sender_address(msg: EmailMessage) -> str:
    """The single address of the message's From header.

    Raises:
        MailError: no From, an unreadable one, or several addresses in it.
    """
    try:
        header = msg["From"]
        addresses = header.addresses if header is not None else ()
    except (MessageError, ValueError, IndexError):
        addresses = ()
    specs: list[str] = [a.addr_spec for a in addresses if a.username and a.domain]
    if len(specs) != 1:
        raise MailError("the message has no single sender address in its From header")
    return specs[0]


def is_automatic(msg: EmailMessage) -> bool:
    """True for a message no person wrote (RFC 3834 ``Auto-Submitted``, a bounce, a mailing
    list's ``Precedence``), which must never be answered."""
    auto = str(msg.get("Auto-Submitted", "no")).split(";")[0].strip().lower()
    precedence = str(msg.get("Precedence", "")).strip().lower()
    return (auto != "no" or precedence in ("bulk", "junk", "list")
            or str(msg.get("Return-Path", "")).strip() == "<>"
            or msg.get_content_type() == "multipart/report")

