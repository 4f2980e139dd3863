"""The shelves' entries of views, kept from one view to the next, with their renderings.

Every view has every shelf of the game, most of them closed, and a shelf no move touched is the
same object in the next state: its entry (:func:`shelf_view`) is built, and written as YAML
(:mod:`.yaml_view`) and as text (:mod:`.text`), once per way it is seen rather than once per view.
Nothing kept here is shown to a viewer who may not see it: an entry is kept apart for each way a
viewer may see its shelf.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from rebis_pbm.engine.cards import DEALT, NEGATIVE, POSITIVE, Shelf, ShelfCard

if TYPE_CHECKING:
    from rebis_pbm.present.shapes import CardView, ShelfView


def card_view(card: ShelfCard, seat: int, viewer_seat: int | None, seats: tuple[str, ...],
              revealed: bool = False) -> CardView:
    """A shelf card's entry as the viewer in ``viewer_seat`` (None: a spectator) sees it: face
    up with its sign; face down with its number only when the viewer laid it or the seed is
    ``revealed``; ``by``, who laid it (``seats``: the players' names by seat)."""
    out: CardView = {}
    if card.factor:
        out["number"] = card.number
        out["sign"] = POSITIVE if card.factor > 0 else NEGATIVE
    else:
        out["face"] = "down"
        if revealed or (viewer_seat is not None and card.placed_by == viewer_seat):
            out["number"] = card.number  # the viewer placed it, or the seed is public
    if card.placed_by != DEALT:
        out["by"] = seats[card.placed_by]
    return out


class KeptShelf:
    """A shelf's entry as some viewers see it (:func:`shelf_view`), never handed out, and its
    renderings, made when first asked for: its YAML as a view's YAML writes a shelf, and its
    lines of the text view by language."""

    __slots__ = ("lines", "view", "yaml")

    def __init__(self, view: ShelfView) -> None:
        self.view = view
        self.yaml: str | None = None
        self.lines: dict[str | None, list[str]] = {}


# What decides how a viewer sees a shelf (shelf_view): its seat, number, whether it is active,
# its score, the seats' names, whether the seed is revealed, and the viewer's seat if they laid
# one of its face-down cards (else None).
ShelfKey = tuple[int, int, bool, int, tuple[str, ...], bool, int | None]
# The shelves' entries kept, by the id of the engine's shelf: (the shelf, held so that no other
# takes its id; the seats that laid its face-down cards; {ShelfKey: KeptShelf}).
_SHELF_VIEWS: dict[int, tuple[Shelf, frozenset[int], dict[ShelfKey, KeptShelf]]] = {}
# The shelf entries handed out in views, by id: (the entry, held; its KeptShelf). A view built
# before this is emptied is rendered in full: slower, the same text.
_VIEWED: dict[int, tuple[ShelfView, KeptShelf]] = {}
KEPT = 8192  # each of the caches of views is emptied when it holds more entries than this
_copy_card = cast("Callable[[CardView], CardView]", dict.copy)


def shelf_view(real: Shelf, seen: Shelf, seat: int, number: int, active: bool, score: int,
               viewer_seat: int | None, seats: tuple[str, ...], revealed: bool) -> ShelfView:
    """A shelf's entry in a view: ``seen`` (the viewer's information set of the shelf ``real``
    of the player in ``seat``) as a new dict, a copy of the one kept for every viewer who sees
    ``real`` alike.

    Kept because ``apply`` writes ten views, and every view has every shelf of the game, most of
    them closed: a shelf no move touched is the same object in the next state, so each is built
    and rendered (:mod:`.yaml_view`, :func:`rebis_pbm.present.text.render_text`) once per way it
    is seen rather than once per view. What a viewer sees of a shelf is decided by the shelf,
    its place (``seat``, ``number``, ``active``, ``score``), the seats' names and whether the
    seed is revealed, and, before that, by whether the viewer laid one of its face-down cards
    (the only cards shown to some and not to others): the key of the entry kept
    (:data:`ShelfKey`). A closed shelf is so seen two ways: by its closer, and by everyone else
    (the spectator too).

    The copy is the caller's to change: the entry keeps its own dict, and rendering uses its
    texts only while the copy is equal to it (:func:`kept_shelf`)."""
    global _SHELF_VIEWS, _VIEWED
    known = _SHELF_VIEWS
    if len(known) > KEPT:
        known = _SHELF_VIEWS = {}
    entry = known.get(id(real))
    if entry is None or entry[0] is not real:  # an id another shelf had is not this shelf's
        entry = known[id(real)] = (real, frozenset(c.placed_by for c in real.cards
                                                   if not c.factor), {})
    laid = not revealed and viewer_seat is not None and viewer_seat in entry[1]
    key: ShelfKey = (seat, number, active, score, seats, revealed, viewer_seat if laid else None)
    kept = entry[2].get(key)
    if kept is None:
        kept = entry[2][key] = KeptShelf({
            "shelf": number,
            "active": active,
            "weight": seen.weight,
            "value": seen.value,
            "tokens": list(seen.tokens),
            "score": score,
            "cards": [card_view(c, seat, viewer_seat, seats, revealed) for c in seen.cards],
        })
    shown = kept.view
    copy: ShelfView = {**shown, "tokens": shown["tokens"].copy(),
                       "cards": list(map(_copy_card, shown["cards"]))}
    viewed = _VIEWED
    if len(viewed) > KEPT:
        viewed = _VIEWED = {}
    viewed[id(copy)] = (copy, kept)  # held: no other dict takes its id while it is here
    return copy


def kept_shelf(shelf: ShelfView) -> KeptShelf | None:
    """The kept entry that ``shelf`` (a view's shelf entry) is a copy of, if it still equals it;
    else None (a shelf built otherwise, or changed since: rendered as it is)."""
    got = _VIEWED.get(id(shelf))
    if got is None or got[0] is not shelf or shelf != got[1].view:
        return None
    return got[1]
