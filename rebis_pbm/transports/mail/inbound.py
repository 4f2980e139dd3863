"""Taking a move (and its signature) out of a message, by the rule of docs/mail.md."""

from __future__ import annotations

import re
from email.errors import MessageError
from email.message import EmailMessage
from typing import NamedTuple

from rebis_pbm.crypto.signatures import ARMOUR
from rebis_pbm.files.names import SIGNATURE as SIGNATURE_SUFFIX
from rebis_pbm.present.i18n import N_, Named, Phrase
from rebis_pbm.transports.mail.policy import MailError

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
       some mail clients do, or of a YAML content type) is the move. Of two or more, those that
       read as a view (the view attachment a reply kept, :func:`_is_view`) are passed over; two
       or more others are refused.
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
       signed file holds it: with a ``---`` block, exactly the lines between ``---`` and
       ``...``, each ended by a line feed.

    Raises:
        MailError: several YAML attachments or signature attachments, an HTML-only message,
            several move blocks, or no move at all; an attachment that cannot be decoded.
    """
    signature = _signature_attachment(msg)
    candidates = [part for part in msg.walk()
                  if not part.is_multipart() and _is_yaml_part(part)]
    if len(candidates) > 1:
        moves = [part for part in candidates if not _is_view(part)]
        candidates = moves if len(moves) == 1 else candidates
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
        if signature is not None:  # signed: the move as the signed file holds it (below)
            return Extracted(_signed_text(_move_text(text)), MESSAGE_TEXT, signature)
        return Extracted(_move_text(text).encode("utf-8"), MESSAGE_TEXT, signature)
    # A move signed in the text: the block goes to the check; the move is the rest, as the file
    # that was signed holds it (no blank lines around: an editor's file ends with one newline).
    rest = text[:armour.start()] + "\n" * armour.group(0).count("\n") + text[armour.end():]
    return Extracted(_signed_text(_move_text(rest)), MESSAGE_TEXT,
                     armour.group(0).encode("ascii", "replace") + b"\n")


def _signed_text(move: str) -> bytes:
    """A move read from a message's text (:func:`_move_text`, whose dropped lines are kept
    empty) as the file its player signed holds it: without the blank lines around it (an
    editor's file ends with one newline), in UTF-8."""
    return (move.strip("\n") + "\n").encode("utf-8")


def _is_view(part: EmailMessage) -> bool:
    """Does the YAML attachment ``part`` read as a view (:func:`rebis_pbm.formats.filekinds.
    kind_of`), such as the view attachment of the message a reply answers? Read with the strict
    reader of every file a player sends; one that cannot be read is not a view."""
    from rebis_pbm.errors import InputError
    from rebis_pbm.formats.filekinds import kind_of
    from rebis_pbm.formats.yaml_reader import load_yaml
    try:
        content = part.get_content()
        data = content.encode("utf-8") if isinstance(content, str) else content
        doc = load_yaml(data, source=part.get_filename() or "attachment", kind="view").data
    except (InputError, LookupError, ValueError, MessageError):
        return False
    return kind_of(doc) == "view"


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

