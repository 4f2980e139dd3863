"""A picture of the table: one view drawn as SVG (docs/views.md, "The picture").

:func:`render_svg` draws from a view (:func:`rebis_pbm.present.build.build_view`) and from nothing
else, so the picture shows exactly the viewer's information set, like the text and YAML forms:
every player's shelves as stacks of cards (face up with their sign; face down, with the number only
where the view gives one: the viewer laid it, or the seed is revealed), the tokens on each shelf
counted by kind, each hand as a count (the viewer's own hand face up), the supply, the deck, whose
turn it is, and the last move highlighted (the shelves its account names, the cards it played).

Plain SVG 1.1: no script, no external file, no font to fetch; a browser, an image viewer or a
mail client that renders SVG shows it as it is. The XML is written here as text, each part of
the picture by a small function that returns its elements: every text goes through
``html.escape`` (:func:`escape`; player names are user input); attributes are this module's
constants and numbers only, so names never go into one. The words are :mod:`.wording`'s, the
text view's.
"""

from __future__ import annotations

import re
import textwrap
from typing import TYPE_CHECKING

from rebis_pbm.present.i18n import gettext_for, ngettext_for
from rebis_pbm.present.wording import TOKEN_WORDS, end_line, moment, standing, winners_line

if TYPE_CHECKING:
    from rebis_pbm.present.shapes import CardView, PlayerView, ShelfView, View


def escape(text: str, quote: bool = True) -> str:
    """``html.escape(text, quote)``: ``&``, ``<`` and ``>`` (with ``quote``, ``"`` and ``'``
    too) as character references. ``html`` is imported only for a text that has one of them:
    the import loads its table of 2,231 named references (8 M instructions), which most
    pictures, whose names and words have none, need not pay for at every start.

    >>> escape('<b>"Zoë" & co</b>'), escape("ann")
    ('&lt;b&gt;&quot;Zoë&quot; &amp; co&lt;/b&gt;', 'ann')
    """
    if "&" in text or "<" in text or ">" in text or (quote and ('"' in text or "'" in text)):
        import html

        return html.escape(text, quote)
    return text


FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"
CARD_W, CARD_H = 46, 64      # one card
STEP = 21                    # how much of each card under the top one shows in a stack
COLUMN = 60                  # one shelf's column
PER_ROW = 12                 # shelves in one row of a player's panel
INFO_W = 200                 # the player's name, hand, reserve and score, left of the shelves
MARGIN = 16
MIN_WIDTH = 960

TABLE = "#1d5a3c"
PANEL = "#236b48"
PANEL_TO_MOVE = "#2b7d55"
INK = "#f4f1e8"
MUTED = "#cfe3d6"
CARD_FACE = "#fbf8ef"
CARD_EDGE = "#3b3b3b"
POSITIVE_INK = "#1a1a1a"
NEGATIVE_INK = "#c0262d"
BACK = "#2f4f8f"
BACK_LINE = "#9db7e8"
KNOWN = "#8fe3ff"            # the outline of a face-down card whose number the viewer knows
HIGHLIGHT = "#ff9a1f"        # the last move
TOKEN_COLOURS = {"golden_dust": ("#f7e08a", "#b8962e"), "gold": ("#e0a526", "#7a5610"),
                 "red": ("#d9413b", "#7a1512")}
XML_HEADER = '<?xml version="1.0" encoding="UTF-8"?>\n'  # a standalone picture's first line


def render_svg(view: View, *, standalone: bool = True, lang: str | None = None,
               last_move: str | None = None) -> str:
    """The view as an SVG document (text, UTF-8 when written), drawn from ``view`` alone.

    ``standalone=False`` leaves out the XML declaration, for an ``<svg>`` inside an HTML page.
    ``lang``: the language of the picture's words (default English); ``view`` stays the English
    view (the last move's shelves are found in its English account), and ``last_move`` is that
    account in ``lang`` (the last history entry's text of the view built in ``lang``), shown in
    its place.
    """
    svg = _Picture(view, lang, last_move).draw()
    return XML_HEADER + svg if standalone else svg


def told_last_move(view_in_lang: View) -> str | None:
    """The ``last_move`` :func:`render_svg` takes for a reader: the last history entry of the
    view built in their language as the text view tells it (its ``account`` when the referee
    made the move for its player, else its ``text``; None when the view has no history). The
    one derivation of it: ``referee.picture``, the mail's picture."""
    history = view_in_lang.get("history")
    if not history:
        return None
    entry = history[-1]
    return entry.get("account", entry.get("text"))


# --- the last move: which shelves and cards its account names --------------------------------

_OWNER = r"(?P<owner>your|\S+'s) shelf (?P<shelf>\d+)"
_PLAYED = re.compile(r"\S+ played (?P<cards>\d+(?: and \d+)?) with sign [+-] on " + _OWNER)
_CLOSED = re.compile(r"\S+ closed " + _OWNER + r" with .*, which starts shelf (?P<new>\d+)")
_PLACED = re.compile(r"\S+ placed (?:the \S+ token|\d+ golden dust from the reserve) on " + _OWNER)


def last_move_marks(view: View) -> dict[tuple[str, int], int]:
    """The shelves the last move's account names, ``(owner, shelf) -> how many of its top cards
    that move laid`` (0: its tokens or its closing, not its cards).

    Read from the sentences of ``views.describe`` in the view's last history entry (the view
    holds no other trace of which card came last); an account with no such sentence marks
    nothing.
    """
    history = view.get("history") or []
    if not history or not history[-1].get("turn"):
        return {}
    marks: dict[tuple[str, int], int] = {}

    def owner(match: re.Match[str]) -> str:
        word: str = match["owner"]
        return view["viewer"] if word == "your" else word[:-2]

    for sentence in history[-1]["text"].rstrip(".").split("; "):
        if (m := _PLAYED.fullmatch(sentence)):
            marks[(owner(m), int(m["shelf"]))] = len(m["cards"].split(" and "))
        elif (m := _CLOSED.fullmatch(sentence)):
            marks.setdefault((owner(m), int(m["shelf"])), 0)
            marks[(owner(m), int(m["new"]))] = 1
        elif (m := _PLACED.fullmatch(sentence)):
            marks.setdefault((owner(m), int(m["shelf"])), 0)
    return marks


# --- the drawing ------------------------------------------------------------------------------
# Each function returns its elements as XML text, one element a line (which keeps a message's
# lines short), byte for byte as ElementTree wrote them before (tests/test_svg_golden.py): about
# a fifth of the cost of building elements, then serialising them. Texts are escaped by _element;
# attributes come from the constants below and from numbers.

def _num(value: float) -> str:
    """A number as an attribute: 23.0 as "23", 2.5 as "2.5" (inline as f"{x:g}" where hot)."""
    return f"{value:g}"


def _style(**attrs: str | float) -> str:
    """Attributes from keywords, as written in a tag: ``stroke_width=1`` as
    ``' stroke-width="1"'``, ``class_`` as ``class``. Constants only: nothing is escaped."""
    return "".join(f' {name.rstrip("_").replace("_", "-")}='
                   f'"{value if isinstance(value, str) else _num(value)}"'
                   for name, value in attrs.items())


def _element(tag: str, attrs: str, text: str | None = None) -> str:
    """``<tag attrs>text</tag>`` (``text`` escaped), or ``<tag attrs />`` without a text."""
    if text:
        return f"<{tag}{attrs}>{escape(text, quote=False)}</{tag}>\n"
    return f"<{tag}{attrs} />\n"


def _group(parts: list[str], attrs: str = "") -> str:
    """A ``<g>`` of ``parts`` (elements as text)."""
    return f"<g{attrs}>\n{''.join(parts)}</g>\n"


def _title(title: str) -> str:
    return _element("title", "", title)


def _text(text: str, x: float, y: float, size: float = 13, *, fill: str = INK,
          weight: str | None = None, anchor: str | None = None, num: bool = False) -> str:
    """A line of text (never wrapped: the callers wrap); ``num``: class "num", a card's number."""
    # The font is the root's, which every text inherits: written once, not on each text.
    key = (x, y, size, fill, weight, anchor, num)
    tag = _TEXT_TAGS.get(key)
    if tag is None:
        if len(_TEXT_TAGS) >= _TEXT_TAGS_KEPT:
            _TEXT_TAGS.clear()
        tag = _TEXT_TAGS[key] = (f'<text x="{x:g}" y="{y:g}" font-size="{size:g}"'
                                 f'{_ANCHORS[anchor]} fill="{fill}"{_WEIGHTS[weight]}'
                                 f'{_NUM[num]}')
    text = str(text)
    if not text:
        return tag + " />\n"
    if "&" in text or "<" in text or ">" in text:
        text = escape(text, quote=False)
    return f"{tag}>{text}</text>\n"


# A text's start tag by its attributes (numbers and constants: nothing a reader may not see;
# the numbers come from int arithmetic and positive halves, never -0.0, which would share 0's key):
# most texts stand where they stood in the last picture.
_TEXT_TAGS: dict[tuple[object, ...], str] = {}
_TEXT_TAGS_KEPT = 4096
# _text's optional attributes, as written (None and "" write nothing, as before)
_ANCHORS = {None: "", "": "", "middle": ' text-anchor="middle"'}
_WEIGHTS = {None: "", "": "", "bold": ' font-weight="bold"', "normal": ' font-weight="normal"'}
_NUM = {False: "", True: ' class="num"'}


# How wide a text is drawn, in ems of its font size, by character: DejaVu Sans's advances,
# rounded (the first font of FONT; the others are about as wide). The picture is laid out from
# these estimates, so that no text runs into another in any language (tests/test_native_layout.py
# measures the texts in a browser).
_NARROW = frozenset("iljI.,:;'!|\u00a0()[]")
_SLIM = frozenset("frt -")
_WIDE = frozenset("mwMW\u2014")


def text_width(text: str, size: float, bold: bool = False) -> float:
    """The estimated width of ``text`` at font ``size`` (pixels), ``bold`` or not."""
    ems = sum(0.3 if c in _NARROW else 0.42 if c in _SLIM else 0.95 if c in _WIDE
              else 0.72 if c.isupper() else 0.64 for c in text)
    return ems * size * (1.1 if bold else 1.0)


def fitted(text: str, size: float, room: float, bold: bool = False,
           smallest: float = 8) -> tuple[str, float]:
    """``text`` and the font size it is drawn at to fit ``room`` pixels: ``size``, or smaller
    down to ``smallest``, then cut with "…" (the whole text stays in the picture's words
    elsewhere: a name in the end lines, a shelf's number)."""
    width = text_width(text, size, bold)
    if width <= room:
        return text, size
    shrunk = max(smallest, int(size * room / width))
    while len(text) > 1 and text_width(text, shrunk, bold) > room:
        text = text[:-2] + "\u2026"
    return text, shrunk


def _rect(x: float, y: float, width: float, height: float, style: str) -> str:
    key = (x, y, width, height, style)
    rect = _RECTS.get(key)
    if rect is None:
        if len(_RECTS) >= _RECTS_KEPT:
            _RECTS.clear()
        rect = _RECTS[key] = (f'<rect x="{x:g}" y="{y:g}" width="{width:g}" height="{height:g}"'
                              f'{style} />\n')
    return rect


_RECTS: dict[tuple[object, ...], str] = {}  # like _TEXT_TAGS: numbers and this module's styles
_RECTS_KEPT = 4096


def _token(x: float, y: float, kind: str, title: str | None = None) -> str:
    """A token of ``kind``; with ``title``, a tooltip inside it."""
    attrs = f' cx="{x:g}" cy="{y:g}"{_TOKENS[kind]}'
    if title is None:
        return f"<circle{attrs} />\n"
    return f"<circle{attrs}>\n{_title(title)}</circle>\n"


def _moved(element: str, dx: float, dy: float) -> str:
    key = (dx, dy)
    tag = _MOVES.get(key)
    if tag is None:
        if len(_MOVES) >= _MOVES_KEPT:
            _MOVES.clear()
        tag = _MOVES[key] = f'<g transform="translate({dx:g},{dy:g})">\n'
    return f"{tag}{element}</g>\n"


_MOVES: dict[tuple[float, float], str] = {}  # a translation's start tag, by its numbers
_MOVES_KEPT = 1024


def _scaled(element: str, factor: float) -> str:
    return f'<g transform="scale({factor:g})">\n{element}</g>\n'


def _stack_height(count: int) -> int:
    return CARD_H + max(count - 1, 0) * STEP


# the styles drawn on every card, written once
_BACK = _style(rx=5, fill=BACK, stroke="#0e1f3d", stroke_width=1)
_BACK_SMALL = _style(rx=4, fill=BACK, stroke="#0e1f3d", stroke_width=1)
_BACK_KNOWN = _style(rx=5, fill=BACK, stroke=KNOWN, stroke_width=2.5)
_BACK_LINES = _style(rx=3, fill="none", stroke=BACK_LINE, stroke_width=1, stroke_dasharray="3,2")
_FACE = _style(rx=5, fill=CARD_FACE, stroke=CARD_EDGE, stroke_width=1)
_NUMBER_PLATE = _style(rx=3, fill=CARD_FACE)
_LAST_CARD = _style(rx=6, fill="none", stroke=HIGHLIGHT, stroke_width=3)
_LAST_SHELF = _style(rx=7, fill="none", stroke=HIGHLIGHT, stroke_width=2.5, stroke_dasharray="5,3")
_ACTIVE_SHELF = _style(rx=6, fill="#ffffff", fill_opacity=0.12)
_TOKENS = {kind: _style(r=5 if kind == "golden_dust" else 6.5, fill=fill, stroke=edge,
                        stroke_width=1.5, class_=f"token {kind}")
           for kind, (fill, edge) in TOKEN_COLOURS.items()}
_CARD_CLASSES = {sign: _style(class_=f"card up {sign}")
                 for sign in ("positive", "negative", "hand")}
# Shelves drawn, by what their drawing depends on (language, seed revealed, how many cards the
# last move laid there, the view's shelf): a move's pictures, one a reader, share most of them.
_SHELVES: dict[tuple[object, ...], tuple[str, float]] = {}
_SHELVES_KEPT = 1024  # then the cache starts again: a referee's process may serve many games
# Cards drawn, by everything their drawing depends on (language, seed revealed, position, last
# move's mark, the card dict's items): the same card recurs across shelves, hands and readers.
_CARDS: dict[tuple[object, ...], str] = {}
_CARDS_KEPT = 4096
# The last move's account wrapped, by (text, width): most readers of a move are told it alike.
_WRAPPED: dict[tuple[str, int], tuple[str, ...]] = {}
_WRAPPED_KEPT = 256
# the styles of the panels, written once
_TABLE = _style(fill=TABLE)
_LAST_MOVE_BOX = _style(rx=6, fill="#17462f", stroke=HIGHLIGHT, stroke_width=2)
_PANEL = {to_move: _style(rx=10, fill=PANEL_TO_MOVE if to_move else PANEL,
                          stroke=HIGHLIGHT if to_move else "#15432d",
                          stroke_width=3 if to_move else 1) for to_move in (False, True)}
_HAND_PANEL = _style(rx=10, fill=PANEL, stroke="#15432d")
_END_BOX = _style(rx=8, fill="#17462f", stroke=KNOWN)
_LEGEND_MARK = _style(rx=3, fill="none", stroke=HIGHLIGHT, stroke_width=2.5)


def _hand_backs(count: int) -> str:
    """``count`` small card backs, one under the other, that count a player's hand."""
    drawn = _HAND_BACKS.get(count)
    if drawn is None:
        back = _Picture._back(0, 0, "hand", small=True)
        drawn = _HAND_BACKS[count] = "".join(
            _moved(back, MARGIN + 12 + 7 * i, 74) for i in range(count))
    return drawn


_HAND_BACKS: dict[int, str] = {}  # by count, 0 to 12: the same in every picture


class _Picture:
    def __init__(self, view: View, lang: str | None = None,
                 last_move: str | None = None) -> None:
        self.view = view
        self.lang = lang
        self._ = gettext_for(lang)
        self.n_ = ngettext_for(lang)
        self.last_move = last_move
        self.viewer = view["viewer"]
        self.public = "you" not in view
        self.revealed = bool(view.get("seed_revealed"))
        self.marks = last_move_marks(view)
        shelves = max((len(p["shelves"]) for p in view["players"]), default=1)
        self.width = max(MIN_WIDTH, 2 * MARGIN + INFO_W + min(shelves, PER_ROW) * COLUMN)

    # the whole picture, top to bottom; each part returns its height
    def draw(self) -> str:
        parts: list[str] = []
        y: float = MARGIN
        for build in (self._header, self._last_move, *[
                (lambda p=p: self._player(p)) for p in self.view["players"]],
                self._hand, self._end, self._legend):
            group, height = build()
            if height:
                parts.append(_moved(group, 0, y))
                y += height + 10
        height = y + MARGIN - 10
        _ = self._
        who = _("spectator view") if self.public else _("view of {viewer}").format(
            viewer=self.viewer)
        title = _("Rebis game {game}, {who}, {when}").format(
            game=self.view["game"], who=who, when=moment(self.view, self.lang))
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width:g}" '
                f'height="{height:g}" viewBox="0 0 {self.width:g} {height:g}" '
                f'font-family="{FONT}">\n{_title(title)}'
                f'{_rect(0, 0, self.width, height, _TABLE)}{"".join(parts)}</svg>')

    def _header(self) -> tuple[str, float]:
        v = self.view
        _ = self._
        who = _("spectator view (no hidden card)") if self.public else _(
            "view of {viewer}").format(viewer=self.viewer)
        g = [_text(_("Rebis \u00b7 game {game} \u00b7 {who}").format(game=v["game"], who=who),
                   MARGIN, 22, 18, weight="bold"),
             _text(standing(v["phase"], v["turn"], v.get("to_move"), v.get("abandoned", False),
                            self.lang, None if self.public else self.viewer),
                   MARGIN, 46, 14, fill=MUTED)]
        # the deck: a card back with its count
        x = MARGIN
        g.append(self._back(x, 60, "deck"))
        deck = self.n_("Deck: {count} card", "Deck: {count} cards", v["deck"]).format(
            count=v["deck"])
        g.append(_text(deck, x + CARD_W + 10, 86, 14))
        x = max(MARGIN + 230, int(x + CARD_W + 10 + text_width(deck, 14)) + 24)
        supply = _("Supply:")
        g.append(_text(supply, x, 86, 14))
        x += int(text_width(supply, 14)) + 8
        for kind in ("golden_dust", "gold", "red"):
            words = f"{_(TOKEN_WORDS[kind])} \u00d7{v['supply'][kind]}"
            g.append(_token(x + 9, 81, kind))
            g.append(_text(words, x + 22, 86, 14))
            x += 22 + int(text_width(words, 14)) + 16
        if self.revealed:
            g.append(_text(_("The seed is revealed: every face-down card shows its number."),
                           MARGIN, 142, 13, fill=KNOWN))
            return _group(g), 148
        return _group(g), 130

    def _last_move(self) -> tuple[str, float]:
        history = self.view.get("history") or []
        if not history or not history[-1].get("turn"):
            return "", 0
        entry = history[-1]
        text = entry.get("account", entry["text"]) if self.last_move is None else self.last_move
        key = (self._("Last move, turn {turn} ({player}): {text}").format(
            turn=entry["turn"], player=entry["player"], text=text),
            (self.width - 2 * MARGIN - 24) // 7)
        lines = _WRAPPED.get(key)
        if lines is None:
            if len(_WRAPPED) >= _WRAPPED_KEPT:
                _WRAPPED.clear()
            lines = _WRAPPED[key] = tuple(textwrap.wrap(key[0], width=key[1]))
        height = 14 + 17 * len(lines)
        g = [_rect(MARGIN, 0, self.width - 2 * MARGIN, height, _LAST_MOVE_BOX)]
        for i, line in enumerate(lines):
            g.append(_text(line, MARGIN + 12, 20 + 17 * i, 13))
        return _group(g), height

    def _player(self, player: PlayerView) -> tuple[str, float]:
        name = player["name"]
        to_move = self.view.get("to_move") == name
        columns = [self._shelf(name, shelf) for shelf in player["shelves"]]
        rows = [columns[i:i + PER_ROW] for i in range(0, len(columns), PER_ROW)] or [[]]
        row_heights = [max((h for _, h in row), default=0) for row in rows]
        height = max(162, 12 + sum(row_heights) + 8 * (len(rows) - 1) + 10)
        g = [_rect(MARGIN, 0, self.width - 2 * MARGIN, height, _PANEL[to_move])]
        x = MARGIN + 12
        _ = self._
        room = INFO_W - 24  # the panel's left column, up to the first shelf
        label, size = fitted(_("{name} (you)").format(name=name) if name == self.viewer
                             else name, 17, room, bold=True)
        g.append(_text(label, x, 26, size, weight="bold"))
        seat = _("seat {seat}").format(seat=player["seat"])
        g.append(_text(seat, x, 44, 12, fill=MUTED))
        if to_move:
            what = _("places the red token") if self.view["phase"] == "red_token" else \
                _("to move")
            after = int(text_width(seat, 12)) + 8
            what, size = fitted(f"\u25b6 {what}", 12, room - after, bold=True)
            g.append(_text(what, x + after, 44, size, fill=HIGHLIGHT, weight="bold"))
        hand = player["hand"]
        g.append(_text(self.n_("Hand: {count} card", "Hand: {count} cards", hand).format(
            count=hand), x, 66, 13))
        g.append(_hand_backs(min(hand, 12)))  # a count: card backs, never the cards
        g.append(_token(x + 7, 124, "golden_dust"))
        g.append(_text(_("reserve \u00d7{count}").format(count=player["reserve"]), x + 20, 129,
                       13))
        score, size = fitted(_("score {score}").format(score=player["score"]), 13, room, True)
        g.append(_text(score, x, 150, size, weight="bold"))
        y: float = 12
        for row, row_height in zip(rows, row_heights, strict=True):  # one height per row
            for i, (column, _height) in enumerate(row):
                g.append(_moved(column, MARGIN + INFO_W + i * COLUMN, y))
            y += row_height + 8
        return _group(g), height

    def _shelf(self, owner: str, shelf: ShelfView) -> tuple[str, float]:
        """One shelf's column and its height; drawn once for all the pictures of a move that
        show it alike (most shelves: only the numbers of face-down cards differ)."""
        marked = self.marks.get((owner, shelf["shelf"]))
        # every field _draw_shelf reads (cards and tokens as tuples): cheaper than repr
        key = (self.lang, self.revealed, marked, shelf["shelf"], shelf["active"],
               shelf["weight"], shelf["value"], shelf["score"], tuple(shelf["tokens"]),
               *[tuple(card.items()) for card in shelf["cards"]])
        drawn = _SHELVES.get(key)
        if drawn is None:
            if len(_SHELVES) >= _SHELVES_KEPT:
                _SHELVES.clear()
            drawn = _SHELVES[key] = self._draw_shelf(shelf, marked)
        return drawn

    def _draw_shelf(self, shelf: ShelfView, marked: int | None) -> tuple[str, float]:
        number, cards = shelf["shelf"], shelf["cards"]
        g = []
        top = 30
        stack = _stack_height(len(cards))
        if marked is not None:  # the last move touched this shelf
            g.append(_rect(-4, -2, CARD_W + 8, top + stack + 6, _LAST_SHELF))
        _ = self._
        room = COLUMN - 6  # a shelf's label stays within its column
        label, size = fitted(_("shelf {shelf}").format(shelf=number), 11, room, smallest=7)
        g.append(_text(label, CARD_W / 2, 11, size, anchor="middle", fill=MUTED))
        state, size = fitted(_("active") if shelf["active"] else _("closed"), 10, room,
                             bold=shelf["active"], smallest=7)
        g.append(_text(state, CARD_W / 2, 24, size, anchor="middle",
                       fill=INK if shelf["active"] else MUTED,
                       weight="bold" if shelf["active"] else "normal"))
        if shelf["active"]:
            g.append(_rect(-2, top - 2, CARD_W + 4, stack + 4, _ACTIVE_SHELF))
        newest = len(cards) - (marked or 0)
        for i, card in enumerate(cards):
            g.append(self._card(card, 0, top + i * STEP, last=i >= newest))
        y = top + stack + 16
        counts: dict[str, int] = {}
        for kind in shelf["tokens"]:
            counts[kind] = counts.get(kind, 0) + 1
        for kind, count in counts.items():
            g.append(_token(7, y - 4, kind, f"{count} {_(TOKEN_WORDS[kind])}"))
            g.append(_text(f"\u00d7{count}", 16, y, 11))
            y += 16
        # "w" and "v": weight and value, in the reader's words (fr p/v, pt p/v)
        g.append(_text(_("w{weight} v{value}").format(weight=shelf["weight"],
                                                       value=shelf["value"]),
                       CARD_W / 2, y + 2, 10, anchor="middle", fill=MUTED))
        g.append(_text(f"= {shelf['score']}", CARD_W / 2, y + 15, 11, anchor="middle",
                       weight="bold"))
        return _group(g), y + 20

    def _card(self, card: CardView, x: float, y: float, *, last: bool = False) -> str:
        """One card (a view's card dict; ``{"number": n}`` alone: a card in the viewer's hand)."""
        key = (self.lang, self.revealed, x, y, last, *card.items())
        drawn = _CARDS.get(key)
        if drawn is None:
            if len(_CARDS) >= _CARDS_KEPT:
                _CARDS.clear()
            drawn = _CARDS[key] = self._draw_card(card, x, y, last)
        return drawn

    def _draw_card(self, card: CardView, x: float, y: float, last: bool) -> str:
        _ = self._
        if card.get("face") == "down":
            known = "number" in card
            kind = "revealed" if known and self.revealed else "yours" if known else "hidden"
            g = self._back_parts(x, y, outline=KNOWN if known else None)
            attrs = f' class="card down {kind}"'
            if known:
                g.append(_rect(x + 4, y + 3, CARD_W - 8, 16, _NUMBER_PLATE))
                g.append(_text(f"[{card['number']}]", x + CARD_W / 2, y + 15, 12,
                               anchor="middle", fill=POSITIVE_INK, weight="bold", num=True))
            if kind == "yours":
                title = _("face-down {number} (you laid it)").format(number=card["number"])
            else:
                title = (_("face-down {number} (seed revealed)").format(number=card["number"])
                         if known else _("face-down card")) + (
                    _(", laid by {player}").format(player=card["by"]) if "by" in card else
                    _(", dealt at setup"))
        else:
            negative = card.get("sign") == "negative"
            ink = NEGATIVE_INK if negative else POSITIVE_INK
            sign = {"negative": "\u2212", "positive": "+"}.get(card.get("sign", ""), "")
            label = sign + str(card["number"])
            attrs = _CARD_CLASSES[card.get("sign", "hand")]
            g = [_rect(x, y, CARD_W, CARD_H, _FACE),
                 _text(label, x + 5, y + 15, 14, fill=ink, weight="bold", num=True),
                 _text(str(card["number"]), x + CARD_W / 2, y + 50, 24, fill=ink,
                       anchor="middle", num=True)]
            title = (_("{card} face up") if sign else _("{card} in your hand")).format(
                card=label) + (_(", played by {player}").format(player=card["by"])
                               if "by" in card else "")
        if last:
            g.append(_rect(x - 2, y - 2, CARD_W + 4, CARD_H + 4, _LAST_CARD))
            title += _(" (the last move)")
        g.append(_title(title))
        return _group(g, attrs)

    @staticmethod
    def _back_parts(x: float, y: float, *, small: bool = False,
                    outline: str | None = None) -> list[str]:
        w, h = (CARD_W * 0.5, CARD_H * 0.5) if small else (CARD_W, CARD_H)
        return [_rect(x, y, w, h, _BACK_SMALL if small else _BACK_KNOWN if outline else _BACK),
                _rect(x + 3, y + 3, w - 6, h - 6, _BACK_LINES)]

    @staticmethod
    def _back(x: float, y: float, kind: str, *, small: bool = False) -> str:
        return _group(_Picture._back_parts(x, y, small=small), f' class="card {kind}"')

    def _hand(self) -> tuple[str, float]:
        you = self.view.get("you")
        if you is None:
            return "", 0
        hand = you["hand"]
        per_row = (self.width - 2 * MARGIN - 24) // (CARD_W + 6)
        rows = max(1, -(-len(hand) // per_row))
        height = 40 + rows * (CARD_H + 8)
        g = [_rect(MARGIN, 0, self.width - 2 * MARGIN, height, _HAND_PANEL)]
        drawn = you.get("drawn")
        _ = self._
        words = self.n_("Your hand ({count} card); reserve: {reserve} golden dust",
                        "Your hand ({count} cards); reserve: {reserve} golden dust",
                        len(hand)).format(count=len(hand), reserve=you["reserve"])
        if "drawn" in you:
            words += (_("; this turn you drew nothing (the deck is empty)") if drawn is None
                      else _("; this turn you drew the {card} (marked)").format(card=drawn))
        g.append(_text(words, MARGIN + 12, 24, 14, weight="bold"))
        # the drawn card is in the hand: mark one card of its number
        marked = max((i for i, c in enumerate(hand) if c == drawn), default=None)
        for i, number in enumerate(hand):
            x = MARGIN + 12 + (i % per_row) * (CARD_W + 6)
            y = 34 + (i // per_row) * (CARD_H + 8)
            g.append(self._card({"number": number}, x, y, last=i == marked))
        if not hand:
            g.append(_text(_("(empty)"), MARGIN + 12, 60, 13, fill=MUTED))
        return _group(g), height

    def _end(self) -> tuple[str, float]:
        end = self.view.get("end")
        if not end:
            return "", 0
        _ = self._
        lines = [end_line(end["reason"], self.lang),
                 _("Burden (R12): {burdens}").format(burdens=", ".join(
                     f"{b['player']} {b['total']}" for b in end["burdens"]))]
        if "scores" in end:
            lines.append(_("Score (R13): {scores}").format(scores=", ".join(
                f"{s['player']} {s['total']}" for s in end["scores"])))
            lines.append(winners_line(end["winners"], self.lang))
        elif "red_token" in end:
            lines.append(_("{player} places the red token (R12).").format(
                player=end["red_token"]))
        height = 12 + 19 * len(lines)
        g = [_rect(MARGIN, 0, self.width - 2 * MARGIN, height, _END_BOX)]
        for i, line in enumerate(lines):
            g.append(_text(line, MARGIN + 12, 21 + 19 * i, 14,
                           weight="bold" if i == len(lines) - 1 else "normal"))
        return _group(g), height

    def _legend(self) -> tuple[str, float]:
        """The legend: an entry for each kind of shelf card the picture shows (a face-down card
        with its number: one the viewer laid, or any once the seed is revealed), the tokens
        (the supply always shows each kind) and the last move's mark when a shelf or the drawn
        card carries it."""
        x = MARGIN
        _ = self._
        shown = {"down" if card.get("face") == "down" and "number" not in card
                 else "known" if card.get("face") == "down" else card.get("sign")
                 for player in self.view["players"] for shelf in player["shelves"]
                 for card in shelf["cards"]}
        entries = []
        if "positive" in shown:
            entries.append((self._card({"number": 4, "sign": "positive"}, 0, 0), _("face up, +")))
        if "negative" in shown:
            entries.append((self._card({"number": 4, "sign": "negative"}, 0, 0),
                            _("face up, \u2212")))
        if "down" in shown:
            entries.append((self._back(0, 0, "down hidden"), _("face down")))
        if "known" in shown:
            entries.append((self._card({"face": "down", "number": 4}, 0, 0),
                            _("face down (seed revealed)") if self.revealed
                            else _("face down, laid by you")))
        g = []
        y = 0  # a new row of the legend when an entry would leave the picture
        right = self.width - MARGIN

        def place(width: float) -> None:
            nonlocal x, y
            if x + width > right and x > MARGIN:
                x, y = MARGIN, y + CARD_H // 2 + 4
        for card, words in entries:
            place(30 + text_width(words, 12))
            g.append(_moved(_scaled(card, 0.5), x, y))
            g.append(_text(words, x + 30, y + 20, 12, fill=MUTED))
            x += 40 + int(text_width(words, 12))
        for kind in ("golden_dust", "gold", "red"):
            place(16 + text_width(_(TOKEN_WORDS[kind]), 12))
            g.append(_token(x + 6, y + 16, kind))
            g.append(_text(_(TOKEN_WORDS[kind]), x + 16, y + 20, 12, fill=MUTED))
            x += 26 + int(text_width(_(TOKEN_WORDS[kind]), 12))
        you = self.view.get("you")
        if self.marks or (you is not None and you.get("drawn") in you["hand"]):  # _shelf, _hand
            place(30 + text_width(_("the last move"), 12))
            g.append(_rect(x, y + 6, 22, 20, _LEGEND_MARK))
            g.append(_text(_("the last move"), x + 30, y + 20, 12, fill=MUTED))
        return _group(g, ' class="legend"'), y + CARD_H / 2
