"""Reply links: each legal move of the player to move as a ``mailto:`` link whose mail is the move.

A player without a key moves in one click (issue 29): the HTML part of the mail that brings their
view lists every legal move, told as :mod:`rebis_pbm.present.describe` tells it, each a
``mailto:`` link (RFC 6068) to the referee's address whose subject names the game, the turn and
the move, and whose body is the move file that ``rebis-pbm play`` would write for it
(:func:`rebis_pbm.app.play.move_file`: ``after:`` and every field of the view's move template),
between a line ``---`` and a line ``...`` (its description's comment in short lines, so that a
mail client's wrapping cannot break it), as ``mail in`` reads a move written in a message's
text. A click and "send" is the move. The links carry only this player's own moves, read from
their own view (their information set): nothing another player may keep secret.

Bound (one screen, about): up to :data:`FEW` moves, one line per move under its card; more, one
line per card (and per count of golden dust tokens placed first), each link showing the move's
own clause ("9 on bob's shelf 4: closes it face down", with where the gold token goes when that
is the choice) and the whole description as its title.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import quote

from rebis_pbm.present.i18n import N_, gettext_for

if TYPE_CHECKING:
    from rebis_pbm.present.describe import Described
    from rebis_pbm.present.shapes import View

WIDTH = 66  # a link's body lines: under the 72 characters a mail client may wrap at
FEW = 16  # up to this many moves: one line each; more: one line per card
CLAUSES = re.compile(r"\s*;\s*")  # a description's clauses ("; ", French " ; ")
HEADING = N_("Your move in one click: choose it below, then send the mail it opens as it is.")


class Link(NamedTuple):
    """One move's link: ``text`` shown, ``title`` (the whole description), the ``href``
    (``mailto:...``), and the ``subject`` and ``body`` of the mail it opens."""

    text: str
    title: str
    href: str
    subject: str
    body: str


def mailto(to: str, subject: str, body: str, in_reply_to: str | None = None) -> str:
    """The ``mailto:`` URL of a mail to ``to`` with ``subject`` and ``body`` (RFC 6068: UTF-8
    percent-encoded, a space ``%20``, a line break ``%0D%0A``), replying to ``in_reply_to``
    (a msg-id) when given."""
    fields = [("subject", subject)]
    if in_reply_to:
        fields.append(("In-Reply-To", in_reply_to))
    lines = body.replace("\r\n", "\n").split("\n")
    return (f"mailto:{quote(to, safe='@')}?" +
            "&".join(f"{name}={_quoted(value)}" for name, value in fields) +
            "&body=" + "%0D%0A".join(map(_quoted_line, lines)))


# Each byte but the ones urllib never quotes (letters, digits, "_.-~") as %XX.
_QUOTED = {byte: f"%{byte:02X}" for byte in range(256)
           if chr(byte) not in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~"}


def _quoted_line(line: str) -> str:
    """:func:`_quoted` of one line of a link's body, kept: the twenty to fifty links of a mail
    share most of their lines (the game, ``after:``, the turn, the player)."""
    quoted = _LINES.get(line)
    if quoted is None:
        if len(_LINES) >= 4096:
            _LINES.clear()
        quoted = _LINES[line] = _quoted(line)
    return quoted


_LINES: dict[str, str] = {}


def _quoted(value: str) -> str:
    """``urllib.parse.quote(value, safe="")``, in one pass in C: quote reads a text byte by byte
    in Python, and a mail's twenty links are about 8,000 bytes (tested equal on every move's
    link in three languages)."""
    return value.encode("utf-8").decode("latin-1").translate(_QUOTED)


def move_links(view: View, referee: str, lang: str | None = None,
               in_reply_to: str | None = None) -> list[tuple[str, list[Link]]]:
    """The links of the moves the viewer of ``view`` (their own view, in ``lang``) may make now,
    grouped by card: ``[(heading, links)]`` in the listing's order. Empty when it is not their
    move (or the game is over, abandoned, or in a fair deal's join phase: a join's entropy must
    be the player's own, never written by the referee)."""
    from rebis_pbm.app.play import OpenedView, move_file
    from rebis_pbm.present.infoset import infoset_from_view

    if view.get("phase") not in ("play", "red_token") or "move_template" not in view:
        return []
    seen = infoset_from_view(view, "the view")
    if seen.viewer is None or seen.abandoned or seen.state.player_to_move != seen.viewer:
        return []
    from rebis_pbm.present.describe import described_moves

    listed = described_moves(seen.game, seen.state, lang)
    opened = OpenedView(view, seen, lang or "en")
    _ = gettext_for(lang)
    groups: dict[tuple[int, tuple[int, ...]], list[Described]] = {}
    for item in listed:
        groups.setdefault((item.effect.dust, item.effect.cards), []).append(item)
    few = len(listed) <= FEW
    out = []
    for (dust, cards), items in groups.items():
        texts = [item.description for item in items] if few else _short(items, seen.viewer,
                                                                        seen.state.ruleset
                                                                        .shelf_limit, lang)
        links = []
        for item, text in zip(items, texts, strict=True):
            body = _wrapped(move_file(opened, item)[1])
            subject = f"[Rebis {seen.game}] " + _("turn {turn}: {move}").format(
                turn=item.doc["turn"], move=item.description)
            links.append(Link(text, item.description,
                              mailto(referee, subject, f"---\n{body}...\n", in_reply_to),
                              subject, f"---\n{body}...\n"))
        out.append((_heading(items[0], dust, cards, lang), links))
    return out


def _wrapped(text: str) -> str:
    """A move file's opening comment (its description) in lines of at most :data:`WIDTH`
    characters: a mail client that wraps long lines (format=flowed, 72 characters) would
    otherwise break a comment into a line that is no YAML."""
    first, _, rest = text.partition("\n")
    if not first.startswith("# "):
        return text
    return "".join(f"# {line}\n" for line in _lines(first[2:], WIDTH - 2)) + rest


def _lines(text: str, width: int) -> list[str]:
    """``textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)`` of a text
    whose words are one space apart (a description): as many words a line as fit in ``width``,
    a longer word alone on its line. textwrap's general splitting cost a link 50 µs."""
    if "  " in text or any(char in text for char in "\t\n\r\x0b\x0c") or text != text.strip():
        import textwrap
        return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line] if line else lines


def _heading(first: Described, dust: int, cards: tuple[int, ...], lang: str | None) -> str:
    """A group's heading: its card (or pair), after the golden dust clause when tokens go first;
    the red token's placement has no card."""
    _ = gettext_for(lang)
    if not cards:
        return _("the red token")
    what = (str(cards[0]) if len(cards) == 1 else
            _("{first} and {second}").format(first=cards[0], second=cards[1]))
    if dust:
        return CLAUSES.split(first.description, maxsplit=1)[0] + ", " + what
    return what


def _short(items: list[Described], mover: str, limit: int, lang: str | None) -> list[str]:
    """Each move's own clause (:func:`rebis_pbm.present.describe.tell` of its effect without
    the golden dust placed first, the token taken and the draws), with where the gold token
    goes when that is what tells two moves apart; a clause two moves would still share: the
    whole description."""
    from rebis_pbm.engine import GOLD
    from rebis_pbm.present.describe import tell

    texts = [tell(item.effect._replace(dust=0, draws=(), ends=None, gold_on=None,
                                       token=None), mover, limit, lang) for item in items]
    texts = [tell(item.effect._replace(dust=0, draws=(), ends=None), mover, limit, lang)
             if texts.count(text) > 1 and item.effect.token == GOLD else text
             for item, text in zip(items, texts, strict=True)]
    return [item.description if texts.count(text) > 1 else text
            for item, text in zip(items, texts, strict=True)]


def links_html(groups: list[tuple[str, list[Link]]], lang: str | None = None) -> str:
    """The HTML of :func:`move_links`' groups: a heading, then one line per move under its card
    (few moves) or one line per card with its moves' links (more than :data:`FEW`)."""
    from rebis_pbm.present.svg import escape

    if not groups:
        return ""
    _ = gettext_for(lang)
    few = sum(len(group[1]) for group in groups) <= FEW
    lines = [f'<div style="font-family:sans-serif;margin:8px 0">\n'
             f"<p><b>{escape(_(HEADING))}</b></p>\n"]
    for heading, links in groups:
        anchors = [f'<a href="{escape(link.href)}" title="{escape(link.title)}">'
                   f"{escape(link.text)}</a>" for link in links]
        if few:
            lines.append(f'<p style="margin:4px 0"><b>{escape(heading)}</b><br>\n'
                         + "<br>\n".join(anchors) + "</p>\n")
        else:
            lines.append(f'<p style="margin:4px 0"><b>{escape(heading)}</b>: '
                         + " \u00b7\n".join(anchors) + "</p>\n")
    return "".join(lines) + "</div>\n"


__all__ = ["FEW", "HEADING", "Link", "links_html", "mailto", "move_links"]
