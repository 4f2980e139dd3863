"""Composing the messages a game sends: views, reminders, replies to a refused move, answers.

Secrecy: a message to a player carries that player's own view (``views.build_view`` for them),
the account of the last move as told to them, and, if they are to move, their move template;
nothing else about the game. A refusal goes to the address in the refused message's From, never
to its Reply-To: a forger who set Reply-To could otherwise read a reason meant for the player.
Every message sent is marked ``Auto-Submitted`` and automatic messages are never answered
(RFC 3834), so two robots cannot answer each other forever.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Sequence
from datetime import datetime, timezone
from email.contentmanager import ContentManager, raw_data_manager
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import TYPE_CHECKING

from rebis_pbm.present.i18n import N_, gettext_for
from rebis_pbm.transports.mail.policy import POLICY

if TYPE_CHECKING:  # the view's shape, for the type checker only
    from rebis_pbm.present.shapes import View

# A view as rebis_pbm.present.views builds it (and rebis_pbm.app.kept_view keeps it): read here
# by key only.


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


def subject(game: str, view: View, lang: str | None = None) -> str:
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
HOW_TO_SIGN = N_("You registered a key, so your move must be signed. Save the attached {view} "
                 "and run this one command (with your own key's path):")
PLAY_COMMAND = "    rebis-pbm play {view} --key ~/.ssh/id_ed25519 --send"
HOW_TO_SIGN_BY_HAND = N_("(Or sign the move file yourself: ssh-keygen -Y sign -f KEY -n "
                         "rebis-pbm FILE writes FILE.sig; attach both.)")
# rebis-pbm/5 (docs/shuffle.md, "Two rounds"): the template holds no entropy, the player's own
# command writes the commitment, then the join
HOW_TO_COMMIT = N_("Run rebis-pbm play on the attached {view} on your own machine: it writes "
                   "your commitment in round 1, your join in round 2 (from the join text it "
                   "kept), as a move file; reply with that file attached (rebis-pbm play --send "
                   "sends it for you).")


def file_names(game: str, view: View) -> tuple[str, str]:
    """The names of a view's attachments: its YAML view and its move template
    (``view-GAME-turn-007-ann.yaml``, ``move-turn-007-ann.yaml``; in the join phase, which has
    no turn, ``view-GAME-join-ann.yaml`` and ``join-ann.yaml``)."""
    viewer = view["viewer"]
    if view["phase"] == "join":
        return f"view-{game}-join-{viewer}.yaml", f"join-{viewer}.yaml"
    turn = view["turn"]
    return f"view-{game}-turn-{turn:03d}-{viewer}.yaml", f"move-turn-{turn:03d}-{viewer}.yaml"


def view_message(*, game: str, view: View, view_text: str, view_yaml: str, news: str | None,
                 sender: str, to: str, original: EmailMessage | None = None,
                 lang: str | None = None, picture: View | None = None,
                 signed: bool = False) -> EmailMessage:
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

    ``signed``: the viewer registered a key (their moves must be signed): the text says so and
    gives the one command that makes and sends the move (``rebis-pbm play VIEW --key ...
    --send``, docs/play.md). Otherwise, for the player to move, the HTML part lists every legal
    move as a reply link (:mod:`rebis_pbm.transports.mail.links`): a click and "send" is the
    move.
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
        _ = gettext_for(lang)
        if signed and "round" not in view:
            parts.append(_(HOW_TO_SIGN).format(view=view_name) + "\n" +
                         PLAY_COMMAND.format(view=view_name) + "\n" + _(HOW_TO_SIGN_BY_HAND))
        else:
            how = (HOW_TO_COMMIT if "round" in view else HOW_TO_JOIN if view["phase"] == "join"
                   else HOW_TO_MOVE)
            parts.append(_(how).format(template=template_name, view=view_name))
    text = "\n\n".join(parts) + "\n"
    msg.set_content(text)
    if picture is not None:
        from rebis_pbm.present.svg import told_last_move
        from rebis_pbm.transports.mail.links import links_html, move_links

        links = "" if signed or viewer == "public" else links_html(
            move_links(view, sender, lang, str(msg["Message-ID"])), lang)
        # base64: 7-bit safe on every mail server, and about half the work of the
        # quoted-printable the email package would choose for the picture's long lines.
        msg.add_alternative(html_body(picture, text, title, lang, told_last_move(view), links),
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


def reminder_message(*, game: str, view: View, view_text: str, view_yaml: str, sender: str,
                     to: str, lang: str | None = None, picture: View | None = None,
                     signed: bool = False) -> EmailMessage:
    """A reminder to the player to move that their deadline is near (docs/deadlines.md): their
    view by mail (:func:`view_message`, so the same view, picture, attachments and thread), told
    as a reminder in its subject and first paragraph. ``view`` must be that player's view in a
    game with a deadline (``view["deadline"]``, UTC), shown in the view's ``time_zone`` when it
    has one. ``lang``, ``picture``, ``signed``: as for :func:`view_message`.
    """
    from rebis_pbm.record.deadlines import shown_time
    _ = gettext_for(lang)
    deadline, turn, zone = view["deadline"], view["turn"], view.get("time_zone")
    if zone:  # the reader's zone (rebis-pbm/4): the time says its own offset and zone
        news = _("Reminder: your move for turn {turn} is due by {deadline}. After that the "
                 "referee may move for you.").format(turn=turn,
                                                    deadline=shown_time(deadline, zone))
        title = _("turn {turn}: reminder, your move is due by {deadline}").format(
            turn=turn, deadline=shown_time(deadline, zone))
    else:
        news = _("Reminder: your move for turn {turn} is due by {deadline} (UTC). After that "
                 "the referee may move for you.").format(turn=turn, deadline=deadline)
        title = _("turn {turn}: reminder, your move is due by {deadline} UTC").format(
            turn=turn, deadline=deadline)
    msg = view_message(game=game, view=view, view_text=view_text, view_yaml=view_yaml,
                       news=news, sender=sender, to=to, lang=lang, picture=picture,
                       signed=signed)
    del msg["Subject"]
    msg["Subject"] = f"[Rebis {game}] " + title
    return msg


def late_messages(*, game: str, view: View, view_text: str, view_yaml: str, sender: str,
                  to: str, grace_end: str,
                  others: Sequence[tuple[str, str, str | None, str | None]],
                  lang: str | None = None, picture: View | None = None,
                  signed: bool = False) -> list[EmailMessage]:
    """The late notices of one turn (docs/deadlines.md, "Grace period"): to the late player
    (``view`` is theirs, with its ``deadline``; ``to`` their address), their view told as late,
    the end of the grace period ``grace_end`` (UTC) first; to each of ``others`` (``(name,
    address, lang, time zone)``), one line saying who is late and until when the game waits.
    Every time is shown in its reader's zone (the view's ``time_zone``, the others' own).
    ``signed``: the late player registered a key (:func:`view_message`).
    """
    from rebis_pbm.record.deadlines import shown_time
    _ = gettext_for(lang)
    deadline, turn, zone = view["deadline"], view["turn"], view.get("time_zone")
    late = view["viewer"]
    news = _("You are late: your move for turn {turn} was due by {deadline}. The referee will "
             "move for you after {grace_end} unless your move comes first.").format(
        turn=turn, deadline=shown_time(deadline, zone), grace_end=shown_time(grace_end, zone))
    msg = view_message(game=game, view=view, view_text=view_text, view_yaml=view_yaml,
                       news=news, sender=sender, to=to, lang=lang, picture=picture,
                       signed=signed)
    del msg["Subject"]
    msg["Subject"] = f"[Rebis {game}] " + _("turn {turn}: you are late").format(turn=turn)
    out = [msg]
    for name, address, their_lang, their_zone in others:
        _ = gettext_for(their_lang)  # each reader's own language
        line = _("{player} is late for turn {turn}: the referee will move for them after "
                  "{grace_end} unless their move comes first.").format(
            player=late, turn=turn, grace_end=shown_time(grace_end, their_zone))
        note = _message(sender, address, name, f"[Rebis {game}] " + _(
            "turn {turn}: {player} is late").format(turn=turn, player=late),
            auto="auto-generated", lang=their_lang)
        _thread(note, game, sender, None)
        note.set_content(line + "\n")
        out.append(note)
    return out


def html_body(view: View, text: str, title: str | None = None, lang: str | None = None,
              last_move: str | None = None, links: str = "") -> str:
    """The HTML alternative of a view's message: the picture of the table as an inline SVG,
    then ``text`` (the plain-text part) as preformatted text.

    Inline SVG, not an image: Apple Mail, iOS Mail and Thunderbird draw it; an ``<img>`` of an
    SVG attachment (``cid:``) or a ``data:`` URI is shown by fewer clients still. Clients that
    drop SVG (Gmail, Outlook) show the text below it, so nothing is lost. The picture is drawn
    from ``view`` alone, the same information set as the text; a view of the join phase (no
    cards yet) has no picture. ``lang``: the reader's language, which ``<html lang>`` names and
    the picture's words are in (default English); ``last_move``: the last move's account in it
    (:func:`rebis_pbm.present.svg.render_svg`); ``links``: the reply links' HTML
    (:func:`rebis_pbm.transports.mail.links.links_html`), between the picture and the text.
    """
    from rebis_pbm.present.svg import escape, render_svg
    title = subject(view["game"], view) if title is None else title
    picture = ("" if view["phase"] == "join" else  # before the deal: no table to draw yet
               '<div style="max-width:100%;overflow-x:auto">'
               f"{render_svg(view, standalone=False, lang=lang, last_move=last_move)}</div>\n")
    return (f'<!DOCTYPE html>\n<html lang="{escape(lang or "en")}"><head><meta charset="utf-8">'
            f"<title>{escape(title)}</title></head>\n"
            '<body style="margin:0;padding:8px;background:#f6f4ee">\n'
            f"{picture}{links}"
            '<pre style="font-family:monospace;white-space:pre-wrap">'
            f"{escape(text)}</pre>\n</body></html>\n")


def reply_message(*, game: str, turn: int, original: EmailMessage, sender: str, to: str,
                  headline: str, reason: str | None, status: str,
                  lang: str | None = None, footer: str | None = None,
                  statement: str | None = None) -> EmailMessage:
    """A reply to ``original``'s sender alone: ``headline``, the ``reason`` quoted, ``status``.

    Used for a refused move (and a move sent twice), and a refused command (with ``footer``,
    the last paragraph, instead of how moves are read). Its subject carries the game and the turn
    awaited (``turn`` 0: the join phase of a fair deal, ``the deal: ...``); ``In-Reply-To`` and
    ``References`` point at ``original``. Only public facts and a reason meant for this sender go
    in. ``lang``: the sender's language, which ``headline``,
    ``reason`` and ``status`` are given in too (default English). ``statement``: the
    referee's signed statement of a refusal (rebis-pbm/4, :func:`rebis_pbm.app.signed_refusal`),
    the last paragraph, as it was signed.
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
    lines += ["", status, "", footer or _("Moves are read from a YAML attachment (*.yaml), or "
                                          "from the message's text between a line '---' and a "
                                          "line '...'; quoted lines and your signature are "
                                          "ignored.")]
    if statement:
        lines += ["", _("The referee's signed statement of this refusal (rebis-pbm verify GAME "
                        "--refusal FILE checks it, FILE this message saved):"), "",
                  statement.rstrip("\n")]
    msg.set_content("\n".join(lines) + "\n")
    return msg


def command_message(*, game: str, original: EmailMessage, sender: str, to: str, title: str,
                    text: str, lang: str | None = None) -> EmailMessage:
    """The answer to a player's command (docs/mail.md, "Commands"), to ``original``'s sender
    alone, as a reply to it: subject ``[Rebis GAME] TITLE``, ``text`` as its text; both given in
    ``lang``, the sender's, which the From's display name is in too."""
    msg = _message(sender, to, "", f"[Rebis {game}] {title}", auto="auto-replied", lang=lang)
    _thread(msg, game, sender, original)
    msg.set_content(text.rstrip("\n") + "\n")
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

