"""E-mail for rebis-pbm: take a move out of a message, and compose the messages a game sends.

Built on the standard library only (``email`` with ``email.policy.default``, its headers made
once: :data:`POLICY`; ``mailbox``, ``smtplib``); nothing here parses mail by hand. The command
line around it is :mod:`rebis_pbm.transports.mail.jobs`; docs/mail.md is the page for players
and referees.

Secrecy: a message to a player carries that player's own view (``views.build_view`` for them),
the account of the last move as told to them, and, if they are to move, their move template;
nothing else about the game. A refusal goes to the address in the refused message's From, never
to its Reply-To: a forger who set Reply-To could otherwise read a reason meant for the player.
Every message sent is marked ``Auto-Submitted`` and automatic messages are never answered
(RFC 3834), so two robots cannot answer each other forever.
"""

from __future__ import annotations

import binascii
import contextlib
import io
import os
import re
import secrets
from datetime import datetime, timezone
from email import policy
from email.contentmanager import ContentManager, raw_data_manager
from email.errors import HeaderParseError, MessageError
from email.generator import BytesGenerator
from email.headerregistry import Address, HeaderRegistry
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import Any, NamedTuple

from rebis_pbm.crypto.signatures import ARMOUR
from rebis_pbm.files.names import SIGNATURE as SIGNATURE_SUFFIX  # MOVE.yaml.sig
from rebis_pbm.present.i18n import N_, Named, Phrase, gettext_for

MAIL_MAX_BYTES = 10 * 1024 * 1024  # a message larger than this is refused unread
YAML_TYPES = frozenset({"application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"})
YAML_SUFFIXES = (".yaml", ".yml", ".yaml.txt", ".yml.txt")  # .txt: added by some mail clients
SIGNATURE = re.compile(r"--[ \t]*")       # the signature separator line "-- " (RFC 3676 4.3)
QUOTED = re.compile(r"[ \t]*>")           # a quoted line of the message replied to
START = re.compile(r"---(?:[ \t].*)?")    # YAML's document start marker ...
END = re.compile(r"\.\.\.[ \t]*")         # ... and its document end marker
# Where a reply's quoted message starts when it is not quoted with '>' (docs/mail.md):
ATTRIBUTION = re.compile(r"[ \t]*(On\b.*\bwrote|Le\b.*\ba écrit|Am\b.*\bschrieb\b.*)[ \t]*:[ \t]*",
                         re.IGNORECASE)                       # "On Mon, ... X <x@y> wrote:"
ATTRIBUTION_START = re.compile(r"[ \t]*(On|Le|Am)\b.*")       # ... wrapped over two lines
ORIGINAL = re.compile(r"[ \t]*-{2,}[ \t]*(Original Message|Ursprüngliche Nachricht|"
                      r"Message d'origine)[ \t]*-{2,}[ \t]*", re.IGNORECASE)  # Outlook
RULE = re.compile(r"[ \t]*_{10,}[ \t]*")   # Outlook's line above the header block
HEADER = re.compile(r"[ \t]*\*?(From|Sent|Date|To|Cc|Subject)(?::\*|\*?:)([ \t].*)?",
                    re.IGNORECASE)  # "From: x", "*From:* x" (bold, as plain text shows it)


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

    KEPT = 1024  # header texts kept (a league's mail in composes messages for many games)

    def __init__(self) -> None:
        super().__init__()
        self._classes: dict[str, type] = {}
        self._made: dict[tuple[str, str], Any] = {}

    def __getitem__(self, name: str) -> type:
        cls = self._classes.get(name.lower())
        if cls is None:
            made = super().__getitem__(name)
            cls = self._classes[name.lower()] = _folds_kept(made)
        return cls

    def __call__(self, name: str, value: Any) -> Any:
        kind = type(value)
        if kind is str:
            key: tuple = (name, value)
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


def _folds_kept(made: type) -> type:
    """The header class ``made`` whose ``fold`` is kept by what it depends on (the line length,
    the line end, UTF-8 or not): one header object serves every message that shares its text
    (``_Headers``), and folding it again for each (its parse tree refolded) was a fifth of
    writing a move's messages. The same text as ``made.fold`` (tested with the mails' bytes)."""

    def fold(self: Any, *, policy: Any) -> str:
        key = (policy.max_line_length, policy.linesep, policy.utf8)
        kept = self.__dict__.setdefault("_folded", {})
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


# --- reading ---------------------------------------------------------------------------------

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
    """An RFC 5322 message from its bytes (:data:`POLICY`; never raises for junk:
    the parser records defects instead)."""
    return _parser.parsebytes(data, headersonly=headers_only)


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
    specs = [a.addr_spec for a in addresses if a.username and a.domain]
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


class Extracted(NamedTuple):
    """A move file taken out of a message: ``data`` (UTF-8 bytes, for the strict loader),
    ``source`` (its name in messages, e.g. ``"the attachment move.yaml"``) and ``signature``:
    the move's armoured SSH signature (a ``.sig`` attachment, or the block
    ``-----BEGIN SSH SIGNATURE-----`` ... in the text), or None (docs/mail.md)."""

    data: bytes
    source: str
    signature: bytes | None = None


def _is_yaml_part(part: EmailMessage) -> bool:
    name = (part.get_filename() or "").lower()
    return name.endswith(YAML_SUFFIXES) or part.get_content_type() in YAML_TYPES


def extract_move(msg: EmailMessage) -> Extracted:
    """The move file in ``msg``, by the rule of docs/mail.md:

    1. A YAML attachment (a file named ``*.yaml`` or ``*.yml``, also with ``.txt`` added as
       some mail clients do, or of a YAML content type) is the move; two or more are refused.
    2. Otherwise the plain-text body: the signature (from a line ``-- `` on), the message
       replied to when it is not quoted with ``>`` (from its Outlook separator, header block or
       "On ... wrote:" line on, :func:`quoted_view_start`), quoted lines (starting with ``>``)
       and their "On ... wrote:" line are dropped; if a line ``---`` remains, the move is the block
       from it to the next ``...`` or ``---`` line (or the end) and text outside is ignored,
       two such blocks are refused; without ``---`` the whole remaining body is the move.
       Dropped lines are kept as empty lines, so that line numbers in an error are body lines.
       No-break spaces (which some mail clients put in indentation) become spaces.
    3. The move's signature, for a player with a key (docs/audit.md, "Signed moves"): a ``*.sig``
       attachment (``ssh-keygen -Y sign`` writes ``MOVE.yaml.sig``), else an armoured block
       ``-----BEGIN SSH SIGNATURE-----`` ... ``-----END SSH SIGNATURE-----`` in the text. A move
       in the text is then taken without the block and without blank lines around it, as the
       signed file holds it.

    Raises:
        MailError: several YAML attachments or signature attachments, an HTML-only message,
            several move blocks, or no move at all; an attachment that cannot be decoded.
    """
    signature = _signature_attachment(msg)
    candidates = [part for part in msg.walk()
                  if not part.is_multipart() and _is_yaml_part(part)]
    if len(candidates) > 1:
        names = ", ".join(p.get_filename() or p.get_content_type() for p in candidates)
        raise MailError(Phrase(N_("the message has {count} YAML attachments ({names}); attach "
                                  "only your move"), {"count": len(candidates), "names": names}))
    if candidates:
        part = candidates[0]
        source = Named(Phrase(N_("the attachment {name}"),
                              {"name": part.get_filename() or part.get_content_type()}))
        try:
            content = part.get_content()
        except (LookupError, ValueError, MessageError) as exc:
            raise MailError(Phrase(N_("{source} cannot be decoded ({error})"),
                                   {"source": source, "error": exc})) from None
        data = content.encode("utf-8") if isinstance(content, str) else content
        return Extracted(data, source, signature or _armour_in_text(msg))
    body = msg.get_body(preferencelist=("plain",))
    if body is None:
        if msg.get_body(preferencelist=("html",)) is not None:
            raise MailError(Phrase(N_("the message has only an HTML part; send it as plain "
                                      "text, or attach the move file")))
        raise MailError(Phrase(N_("the message has no text and no YAML attachment; attach your "
                                  "move file or write the move in the message")))
    try:
        text = body.get_content()
    except (LookupError, ValueError, MessageError) as exc:
        raise MailError(Phrase(N_("the message's text cannot be decoded ({error})"),
                               {"error": exc})) from None
    armour = None if signature is not None else ARMOUR.search(text)
    if armour is None:
        return Extracted(_move_text(text).encode("utf-8"), MESSAGE_TEXT, signature)
    # A move signed in the text: the block goes to the check; the move is the rest, as the file
    # that was signed holds it (no blank lines around: an editor's file ends with one newline).
    rest = text[:armour.start()] + "\n" * armour.group(0).count("\n") + text[armour.end():]
    move = _move_text(rest).strip("\n") + "\n"
    return Extracted(move.encode("utf-8"), MESSAGE_TEXT,
                     armour.group(0).encode("ascii", "replace") + b"\n")


# The source of a move written in a message's text, in refusals (translated: i18n.translate).
MESSAGE_TEXT = Named(Phrase(N_("the message's text")))


def _signature_attachment(msg: EmailMessage) -> bytes | None:
    """The bytes of the message's ``*.sig`` attachment (an SSH signature file), or None.

    Raises:
        MailError: two or more, or one that cannot be decoded.
    """
    parts = [part for part in msg.walk() if not part.is_multipart()
             and (part.get_filename() or "").lower().endswith(SIGNATURE_SUFFIX)]
    if len(parts) > 1:
        raise MailError(Phrase(N_("the message has {count} signature attachments (*.sig); "
                                  "attach only your move's"), {"count": len(parts)}))
    if not parts:
        return None
    try:
        content = parts[0].get_content()
    except (LookupError, ValueError, MessageError) as exc:
        raise MailError(Phrase(N_("{source} cannot be decoded ({error})"), {
            "source": Named(Phrase(N_("the attachment {name}"),
                                   {"name": parts[0].get_filename()})),
            "error": exc})) from None
    return content.encode("ascii", "replace") if isinstance(content, str) else content


def _armour_in_text(msg: EmailMessage) -> bytes | None:
    """The armoured signature block in the message's plain text, or None."""
    body = msg.get_body(preferencelist=("plain",))
    try:
        text = None if body is None else body.get_content()
    except (LookupError, ValueError, MessageError):
        return None
    found = None if not isinstance(text, str) else ARMOUR.search(text)
    return None if found is None else found.group(0).encode("ascii", "replace") + b"\n"


def _attribution(lines: list[str], index: int) -> int:
    """How many lines (0, 1 or 2) the attribution line at ``index`` takes: ``On <date>, <name>
    wrote:`` on one line, or wrapped over two as mail clients do with a long name."""
    line = lines[index]
    if ATTRIBUTION.fullmatch(line):
        return 1
    if (ATTRIBUTION_START.fullmatch(line) and index + 1 < len(lines)
            and ATTRIBUTION.fullmatch(line.rstrip() + " " + lines[index + 1].strip())):
        return 2
    return 0


def quoted_view_start(lines: list[str]) -> int | None:
    """The index of the first line of a quoted message that is not quoted with ``>`` (a reply
    written on top of the message it answers), or None.

    A quoted message starts at an Outlook separator (``-----Original Message-----``), at an
    Outlook header block (a ``From:`` line followed, before the next empty line, by ``Subject:``
    and ``Sent:`` or ``Date:``; a line of underscores just above belongs to it), or at an
    attribution line (``On <date>, <name> wrote:``, one line or wrapped over two) that is not
    followed by ``>``-quoted lines (those are dropped line by line, so that a move written
    below a ``>`` quote still counts). Everything from there on is the quoted message.

    Not ``email-reply-parser``: it takes the move's ``---`` line for a signature separator
    (dropping a move written between ``---`` and ``...``), strips and rejoins the text (line
    numbers in errors would no longer be the sender's), and rewrites the text with a regular
    expression spanning lines.
    """
    for index, line in enumerate(lines):
        if QUOTED.match(line):
            continue
        if ORIGINAL.fullmatch(line):
            return index
        if HEADER.fullmatch(line) and line.strip().lstrip("*").lower().startswith("from"):
            block = []
            for after in lines[index + 1:]:
                if not after.strip() or not HEADER.fullmatch(after):
                    break
                block.append(after.strip().lstrip("*").split(":")[0].rstrip("*").lower())
            if "subject" in block and ("sent" in block or "date" in block):
                start = index
                while start > 0 and not lines[start - 1].strip():
                    start -= 1
                return start - 1 if start > 0 and RULE.fullmatch(lines[start - 1]) else index
        size = _attribution(lines, index)
        if size:
            following = next((text for text in lines[index + size:] if text.strip()), None)
            if following is None or not QUOTED.match(following):
                return index
    return None


def _move_text(text: str) -> str:
    lines = text.replace("\u00a0", " ").splitlines()
    for index, line in enumerate(lines):
        if SIGNATURE.fullmatch(line):
            lines = lines[:index]
            break
    start = quoted_view_start(lines)
    if start is not None:
        lines = lines[:start]
    # A '>' quote's attribution line ("On ... wrote:") goes with the quoted lines.
    dropped = {i + k for i in range(len(lines)) for k in range(_attribution(lines, i))}
    lines = ["" if QUOTED.match(line) or i in dropped else line for i, line in enumerate(lines)]
    blocks: list[list[int]] = []   # line indexes of each --- block
    inside = False
    for index, line in enumerate(lines):
        if START.fullmatch(line):
            blocks.append([])
            inside = True
        elif END.fullmatch(line):
            inside = False
        elif inside:
            blocks[-1].append(index)
    if blocks:
        blocks = [b for b in blocks if any(lines[i].strip() for i in b)]
        if len(blocks) > 1:
            raise MailError(Phrase(N_("the message's text has {count} blocks starting with a "
                                      "line '---'; send one move per message"),
                                   {"count": len(blocks)}))
        keep = set(blocks[0]) if blocks else set()
        lines = [line if i in keep else "" for i, line in enumerate(lines)]
    if not any(line.strip() for line in lines):
        raise MailError(Phrase(N_("no move found in the message: attach your move file, or "
                                  "write it in the text between a line '---' and a line '...'")))
    return "\n".join(lines) + "\n"


# --- writing ---------------------------------------------------------------------------------

def domain_of(address: str) -> str:
    """``"referee@example.org"`` -> ``"example.org"`` (for Message-IDs); the address must have
    passed :func:`check_address`."""
    return Address(addr_spec=address).domain


def thread_id(game: str, domain: str) -> str:
    """The Message-ID every message of ``game`` refers to, so that mail clients thread them."""
    return f"<rebis-pbm.{re.sub(r'[.]+', '.', game).strip('.')}@{domain}>"


def _message(sender: str, to: str, display: str, subject: str, *, auto: str,
             lang: str | None = None) -> EmailMessage:
    msg = EmailMessage(policy=POLICY)
    msg["From"] = Address(gettext_for(lang)(N_("Rebis referee")), addr_spec=sender)
    msg["To"] = Address(display, addr_spec=to)
    msg["Subject"] = subject
    # The date is for people's mail clients only; no replay depends on it.
    msg["Date"] = format_datetime(datetime.now(timezone.utc))
    msg["Message-ID"] = make_msgid("rebis-pbm", domain=domain_of(sender))
    msg["Auto-Submitted"] = auto
    return msg


# A msg-id as a reply may repeat it: <...> of printable ASCII, no space, "<" or ">" inside,
# at most 250 characters (a header line holds at most 998).
MSG_ID = re.compile(r"<[\x21-\x3b\x3d\x3f-\x7e]{1,248}>")
REFERENCES_KEPT = 20  # the latest msg-ids of a References header a reply carries on


def repeatable_id(text: str) -> bool:
    """Whether a reply may repeat ``text`` as a msg-id in its In-Reply-To or References:
    :data:`MSG_ID`, and no ``=?`` (those headers are unstructured: the email package would
    decode an encoded word ``=?utf-8?b?...?=`` in it, which may hold a line break and a header
    of the sender's choosing, such as a Bcc)."""
    return bool(MSG_ID.fullmatch(text)) and "=?" not in text


def replied_ids(original: EmailMessage) -> tuple[str | None, list[str]]:
    """``original``'s Message-ID and the msg-ids of its References, as a reply repeats them:
    only those :func:`repeatable_id` accepts, the latest :data:`REFERENCES_KEPT` references.
    The sender writes these headers: a Message-ID folded, too long, or encoded to hold a line
    break is left out; the reply is still sent."""
    text = str(original.get("Message-ID", "")).strip()
    original_id = text if repeatable_id(text) else None
    earlier = [r for r in str(original.get("References", "")).split() if repeatable_id(r)]
    return original_id, earlier[-REFERENCES_KEPT:]


def _thread(msg: EmailMessage, game: str, sender: str, original: EmailMessage | None) -> None:
    references = [thread_id(game, domain_of(sender))]
    if original is not None:
        original_id, earlier = replied_ids(original)
        references += [r for r in earlier if r not in references]
        if original_id:
            msg["In-Reply-To"] = original_id
            references.append(original_id)
    msg["References"] = " ".join(references)


def subject(game: str, view: dict, lang: str | None = None) -> str:
    """``[Rebis GAME] turn N: ...``: the game id and the turn awaited, for threading; the rest
    in ``lang`` (default English; ``[Rebis GAME]`` stays, mail in reads it). A view of the join
    phase (a fair deal before the deal, which has no turn yet): ``[Rebis GAME] the deal: ...``,
    the viewer's join awaited or the players still to join."""
    _ = gettext_for(lang)
    if view["phase"] == "join":
        if view["viewer"] in view["waiting"]:
            what = _("the deal: send your join")
        else:
            what = _("the deal: waiting for joins by {players}").format(
                players=", ".join(view["waiting"]))
        return f"[Rebis {game}] " + what
    viewer, turn, phase = view["viewer"], view["turn"], view["phase"]
    if phase == "finished":
        return f"[Rebis {game}] " + _("turn {turn} was the last: the game is over").format(
            turn=turn - 1)
    mover = view["to_move"]
    if phase == "red_token":
        what = (_("turn {turn}: you place the red token") if mover == viewer else
                _("turn {turn}: {player} places the red token"))
    else:
        what = (_("turn {turn}: your move") if mover == viewer else
                _("turn {turn}: {player} to move"))
    return f"[Rebis {game}] " + what.format(turn=turn, player=mover)


HOW_TO_MOVE = N_("To move, reply with the attached {template} edited (or attach your own move "
                 "file), or write the move in your reply between a line '---' and a line '...'. "
                 "Quoted lines (starting with '>') and your signature are ignored.")
HOW_TO_JOIN = N_("To join, reply with the attached {template}, the words after join: replaced by "
                 "any text of your own (a join that keeps them is refused), or write the join in "
                 "your reply between a line '---' and a line '...'. Quoted lines (starting with "
                 "'>') and your signature are ignored.")


def file_names(game: str, view: dict) -> tuple[str, str]:
    """The names of a view's attachments: its YAML view and its move template
    (``view-GAME-turn-007-ann.yaml``, ``move-turn-007-ann.yaml``; in the join phase, which has
    no turn, ``view-GAME-join-ann.yaml`` and ``join-ann.yaml``)."""
    viewer = view["viewer"]
    if view["phase"] == "join":
        return f"view-{game}-join-{viewer}.yaml", f"join-{viewer}.yaml"
    turn = view["turn"]
    return f"view-{game}-turn-{turn:03d}-{viewer}.yaml", f"move-turn-{turn:03d}-{viewer}.yaml"


def view_message(*, game: str, view: dict, view_text: str, view_yaml: str, news: str | None,
                 sender: str, to: str, original: EmailMessage | None = None,
                 lang: str | None = None, picture: dict | None = None) -> EmailMessage:
    """One view by mail: to a player (``view["viewer"]`` is their name) or to the referee (the
    public view).

    Body: ``news`` (the last move told to this viewer), the view as text, and for the player to
    move how to answer; with ``picture`` (the English view the picture is drawn from), as its
    HTML alternative, the picture of the table (an inline SVG, :mod:`rebis_pbm.present.svg`) above
    the
    same text (drawing it costs more than the rest of a move: ``--no-pictures`` leaves it out).
    Attachments: the view as YAML, and the move template for the player to move. ``original``
    (the message of an accepted move, for its sender) makes it a reply.

    ``lang``: the reader's language (:mod:`rebis_pbm.present.i18n`): the subject and the words
    around
    the view are in it; pass ``view`` (and ``view_text``, ``news``) built in it, ``view_yaml``
    in English.
    """
    viewer = view["viewer"]
    display = "Rebis referee" if viewer == "public" else viewer
    title = subject(game, view, lang)
    msg = _message(sender, to, display, title, auto="auto-generated",
                   lang=lang)
    _thread(msg, game, sender, original)
    view_name, template_name = file_names(game, view)
    parts = [news] if news else []
    parts.append(view_text.rstrip("\n"))
    if "move_template" in view:
        how = HOW_TO_JOIN if view["phase"] == "join" else HOW_TO_MOVE
        parts.append(gettext_for(lang)(how).format(template=template_name))
    text = "\n\n".join(parts) + "\n"
    msg.set_content(text)
    if picture is not None:
        from rebis_pbm.present.svg import told_last_move

        # base64: 7-bit safe on every mail server, and about half the work of the
        # quoted-printable the email package would choose for the picture's long lines.
        msg.add_alternative(html_body(picture, text, title, lang, told_last_move(view)),
                            subtype="html", content_manager=_BASE64_TEXT)
    msg.add_attachment(view_yaml.encode("utf-8"), maintype="application", subtype="yaml",
                       filename=view_name)
    if "move_template" in view:
        msg.add_attachment(view["move_template"].encode("utf-8"), maintype="application",
                           subtype="yaml", filename=template_name)
    return msg


def _set_base64_text(msg: EmailMessage, text: str, subtype: str = "plain") -> None:
    """``msg.set_content(text, subtype=subtype, cte="base64")`` as the email package does it
    (``set_text_content``: the same headers in the same order, the UTF-8 text with its lines
    ended by LF, in base64 lines of 76 characters; tested), with the base64 made in one call
    where the email package encodes 57 bytes at a time in Python: a picture's HTML part is
    about 900 lines, five a move. Another policy's line end or length: the email package's."""
    if msg.policy.linesep != "\n" or msg.policy.max_line_length != 78:
        raw_data_manager.set_content(msg, text, subtype, cte="base64")
        return
    data = b"\n".join(text.encode("utf-8").splitlines()) + b"\n"
    encoded = binascii.b2a_base64(data, newline=False).decode("ascii")
    msg["Content-Type"] = f"text/{subtype}"
    # 78 characters a line (email.policy.default): 76 of base64, whole quads
    msg.set_payload("\n".join(re.findall(".{1,76}", encoded)) + "\n")
    msg.set_param("charset", "utf-8", replace=True)
    msg["Content-Transfer-Encoding"] = "base64"


_BASE64_TEXT = ContentManager()  # the picture's HTML part: text in base64 (_set_base64_text)
_BASE64_TEXT.add_set_handler(str, _set_base64_text)


def reminder_message(*, game: str, view: dict, view_text: str, view_yaml: str, sender: str,
                     to: str, lang: str | None = None, picture: dict | None = None
                     ) -> EmailMessage:
    """A reminder to the player to move that their deadline is near (docs/deadlines.md): their
    view by mail (:func:`view_message`, so the same view, picture, attachments and thread), told
    as a reminder in its subject and first paragraph. ``view`` must be that player's view in a
    game with a deadline (``view["deadline"]``, UTC). ``lang``, ``picture``: as for
    :func:`view_message`.
    """
    _ = gettext_for(lang)
    deadline, turn = view["deadline"], view["turn"]
    news = _("Reminder: your move for turn {turn} is due by {deadline} (UTC). After that the "
             "referee may move for you.").format(turn=turn, deadline=deadline)
    msg = view_message(game=game, view=view, view_text=view_text, view_yaml=view_yaml,
                       news=news, sender=sender, to=to, lang=lang, picture=picture)
    del msg["Subject"]
    msg["Subject"] = f"[Rebis {game}] " + _("turn {turn}: reminder, your move is due by "
                                             "{deadline} UTC").format(turn=turn,
                                                                      deadline=deadline)
    return msg


def html_body(view: dict, text: str, title: str | None = None, lang: str | None = None,
              last_move: str | None = None) -> str:
    """The HTML alternative of a view's message: the picture of the table as an inline SVG,
    then ``text`` (the plain-text part) as preformatted text.

    Inline SVG, not an image: Apple Mail, iOS Mail and Thunderbird draw it; an ``<img>`` of an
    SVG attachment (``cid:``) or a ``data:`` URI is shown by fewer clients still. Clients that
    drop SVG (Gmail, Outlook) show the text below it, so nothing is lost. The picture is drawn
    from ``view`` alone, the same information set as the text; a view of the join phase (no
    cards yet) has no picture. ``lang``: the reader's language, which ``<html lang>`` names and
    the picture's words are in (default English); ``last_move``: the last move's account in it
    (:func:`rebis_pbm.present.svg.render_svg`).
    """
    from rebis_pbm.present.svg import escape, render_svg
    title = subject(view["game"], view) if title is None else title
    picture = ("" if view["phase"] == "join" else  # before the deal: no table to draw yet
               '<div style="max-width:100%;overflow-x:auto">'
               f"{render_svg(view, standalone=False, lang=lang, last_move=last_move)}</div>\n")
    return (f'<!DOCTYPE html>\n<html lang="{escape(lang or "en")}"><head><meta charset="utf-8">'
            f"<title>{escape(title)}</title></head>\n"
            '<body style="margin:0;padding:8px;background:#f6f4ee">\n'
            f"{picture}"
            '<pre style="font-family:monospace;white-space:pre-wrap">'
            f"{escape(text)}</pre>\n</body></html>\n")


def reply_message(*, game: str, turn: int, original: EmailMessage, sender: str, to: str,
                  headline: str, reason: str | None, status: str,
                  lang: str | None = None) -> EmailMessage:
    """A reply to ``original``'s sender alone: ``headline``, the ``reason`` quoted, ``status``.

    Used for a refused move (and a move sent twice). Its subject carries the game and the turn
    awaited (``turn`` 0: the join phase of a fair deal, ``the deal: ...``); ``In-Reply-To`` and
    ``References`` point at ``original``. Only public facts and a reason meant for this sender go
    in. ``lang``: the sender's language, which ``headline``,
    ``reason`` and ``status`` are given in too (default English).
    """
    _ = gettext_for(lang)
    about_turn = (_("the deal: {headline}") if turn == 0 else
                  _("turn {turn}: {headline}")).format(turn=turn, headline=headline)
    msg = _message(sender, to, "", f"[Rebis {game}] " + about_turn, auto="auto-replied",
                   lang=lang)
    _thread(msg, game, sender, original)
    asked = " ".join(str(original.get("Subject", "")).split())  # one line, as it is quoted
    about = f' "{asked}"' if asked else ""
    lines = [_("Your message{about} about game {game}: {headline}.").format(
        about=about, game=game, headline=headline)]
    if reason:
        lines += ["", "    " + reason.replace("\n", "\n    ")]
    lines += ["", status, "", _("Moves are read from a YAML attachment (*.yaml), or from the "
                                "message's text between a line '---' and a line '...'; quoted "
                                "lines and your signature are ignored.")]
    msg.set_content("\n".join(lines) + "\n")
    return msg


def no_game_message(*, original: EmailMessage, sender: str, to: str,
                    games: list[str], lang: str | None = None) -> EmailMessage:
    """A reply to ``original``'s sender alone, for a message sent to a mailbox that serves
    several games but naming none of them: it names ``games`` (the sender's own games, never
    the others') and how to say which one a move is for; in ``lang``, the sender's (the
    language of their first game; default English)."""
    _ = gettext_for(lang)
    msg = _message(sender, to, "", "[Rebis] " + _("your message names no game: nothing was "
                                                  "applied"), auto="auto-replied", lang=lang)
    original_id, earlier = replied_ids(original)
    if original_id:
        msg["In-Reply-To"] = original_id
        msg["References"] = " ".join(earlier + [original_id])
    asked = " ".join(str(original.get("Subject", "")).split())  # one line, as it is quoted
    about = f' "{asked}"' if asked else ""
    yours = ", ".join(games)
    msg.set_content(
        _("Your message{about} names no game of this referee, so nothing was applied.").format(
            about=about) + "\n\n" +
        _("Say which game your move is for: its game id in the move (game: ID, as in the move "
          "template), or reply to the game's last message, whose subject starts with "
          "[Rebis ID]. Your games: {games}.").format(games=yours) + "\n")
    return msg


# --- Maildir folders: incoming mail, and the queue of mail to send ------------------------------

def maildir_new(folder: str | os.PathLike) -> list[Path]:
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


def maildir_unseen(folder: str | os.PathLike) -> list[Path]:
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


def queue(folder: str | os.PathLike, messages: list[EmailMessage]) -> None:
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
        if self._NL == "\n" and "\r" not in lines:
            self.write(lines)
        else:
            super()._write_lines(lines)  # CR or CRLF to turn into the policy's line end


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


# --- sending ---------------------------------------------------------------------------------

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


def _refusal(exc) -> Refusal:
    import smtplib

    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _ in exc.recipients.values()] or [550]
        again = [code for code in codes if code < 500]  # any 4xx: try again later
        texts = [_text(text) for code, text in exc.recipients.values()]
        return Refusal(again[0] if again else codes[0], "; ".join(texts))
    return Refusal(exc.smtp_code, _text(exc.smtp_error))


def _text(value) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def send_smtp(server: SmtpServer, paths: list[Path], sent, refused=None) -> None:
    """Send the message files ``paths`` in order through one SMTP session; after each one the
    server accepted, call ``sent(path)``; after each one it refused (a reply to the sender, a
    recipient or the data), call ``refused(path, Refusal)`` and go on with the next (without
    ``refused``, the refusal is raised as the smtplib exception).

    Raises:
        smtplib.SMTPException, ssl.SSLError, OSError: the server could not be reached, or
            refused the session (login, TLS): the messages not yet passed on are not sent.
    """
    import smtplib
    import socket
    import ssl

    # local_hostname: our own name for EHLO, without the DNS look-up smtplib would make.
    local = socket.gethostname() or "localhost"
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
                msg = parse_message(path.read_bytes())
                smtp.send_message(msg, to_addrs=recipients(msg))
            except (smtplib.SMTPRecipientsRefused, smtplib.SMTPSenderRefused,
                    smtplib.SMTPDataError) as exc:
                if refused is None:
                    raise
                with contextlib.suppress(smtplib.SMTPException):
                    smtp.rset()
                refused(path, _refusal(exc))
                continue
            sent(path)


def recipients(msg: EmailMessage) -> list[str]:
    """Whom ``mail out`` sends a queued message to: the addresses of its ``To`` alone. rebis-pbm
    writes each message for its reader in ``To``; a ``Cc`` or ``Bcc`` in a queued message (a
    header a sender's text could have slipped in) never makes a recipient of anyone."""
    header = msg["To"]
    return [a.addr_spec for a in (header.addresses if header is not None else ())]


def send_sendmail(program: str, paths: list[Path], sent) -> None:
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
