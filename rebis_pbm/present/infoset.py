"""A player's information set rebuilt from their own YAML view, without the seed (docs/views.md).

A player's view (:func:`rebis_pbm.present.build.build_view`, format ``rebis-pbm/view/2``) holds
everything the rules need to judge their move: the ruleset, their hand and the card they drew,
every shelf card by card (face-down cards they did not place without their number), the tokens, the
reserves, the supply, the hand sizes and the number of cards left in the deck.
:func:`infoset_from_view` turns it back into the :class:`~rebis_pbm.engine.State` that
:func:`~rebis_pbm.engine.information_set` gives the referee for that player: every card the player
may not know is ``HIDDEN``. ``legal_moves`` and ``check_move`` for that player depend only on what
they know, so on it they give exactly the referee's answers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from rebis_pbm.engine import Ruleset, State
from rebis_pbm.engine.cards import DEALT, HIDDEN, NEGATIVE, Shelf, ShelfCard
from rebis_pbm.engine.enums import EndReason, Phase, TokenKind
from rebis_pbm.engine.state import FINISHED, PLAY, RED_TOKEN, Supply
from rebis_pbm.errors import InputError
from rebis_pbm.present.build import PUBLIC, VIEW_FORMAT

if TYPE_CHECKING:
    from rebis_pbm.present.shapes import View


class ViewState(NamedTuple):
    """What :func:`infoset_from_view` rebuilds.

    Attributes:
        game: the game's id.
        viewer: the player whose view it is (None: the spectator view).
        state: that player's information set (hidden cards ``HIDDEN``; ``last_mover`` None,
            which no rule a player's move is judged by reads).
        abandoned: the view says the game was abandoned (no more moves).
        lang: the language the viewer is spoken to in (the view's ``lang``; ``en`` without).
    """

    game: str
    viewer: str | None
    state: State
    abandoned: bool
    lang: str = "en"


def infoset_from_view(view: View, source: str) -> ViewState:
    """The information set of the view's viewer, from a view already validated against
    ``schemas/view.schema.json``.

    Raises:
        InputError: the view's numbers contradict each other (a card's ``by`` naming no player,
            a ``to_move`` who is not a player, a ruleset out of range): one sentence naming
            ``source`` (exit 2).
    """
    try:
        ruleset = Ruleset.from_dict(view["ruleset"])
    except ValueError as exc:
        raise InputError(f"{exc}; this view was not written by rebis-pbm", source=source) from None
    listed = sorted(view["players"], key=lambda p: p["seat"])
    players = tuple(p["name"] for p in listed)

    def seat_of(name: str | None, what: str) -> int | None:
        if name is None:
            return None
        if name not in players:
            raise InputError(f"{what} names {name!r}, who is not one of the view's players "
                             f"({', '.join(players)}); this view was not written by rebis-pbm",
                             source=source)
        return players.index(name)

    viewer = None if view["viewer"] == PUBLIC else view["viewer"]
    viewer_seat = seat_of(viewer, "viewer")
    you = view.get("you", {})
    hands = tuple(tuple(sorted(you.get("hand", ()))) if seat == viewer_seat
                  else (HIDDEN,) * p["hand"] for seat, p in enumerate(listed))
    shelves = []
    for p in listed:
        row = []
        for shelf in p["shelves"]:
            cards = []
            for card in shelf["cards"]:
                by = seat_of(card.get("by"), "a card's 'by'")
                placed_by = DEALT if by is None else by
                if card.get("face") == "down":
                    cards.append(ShelfCard(card.get("number", HIDDEN), 0, placed_by))
                else:
                    factor = -1 if card["sign"] == NEGATIVE else 1
                    cards.append(ShelfCard(card["number"], factor, placed_by))
            row.append(Shelf(tuple(cards), tuple(TokenKind(kind) for kind in shelf["tokens"])))
        shelves.append(tuple(row))
    to_move = seat_of(view.get("to_move"), "to_move")
    phase = view["phase"]
    if phase in (PLAY, RED_TOKEN) and to_move is None and not view.get("abandoned"):
        raise InputError("the view says the game is in play but names nobody to move; this view "
                         "was not written by rebis-pbm", source=source)
    drawn = None
    if phase == PLAY and to_move is not None:
        drawn = you.get("drawn") if to_move == viewer_seat else HIDDEN
    # The deck: only its size is known. The referee's order holds the whole deck; the cards
    # that left it are those before deck_pos.
    deck = view["deck"]
    size = max(ruleset.card_count, deck)
    supply = Supply(**view["supply"])
    end = view.get("end")
    state = State(ruleset, players, (HIDDEN,) * size, size - deck, hands, tuple(shelves),
                  tuple(p["reserve"] for p in listed), supply, view["turn"],
                  Phase(phase) if phase in (PLAY, RED_TOKEN, FINISHED) else FINISHED,
                  None if view.get("abandoned") or phase == FINISHED else to_move, drawn, None,
                  EndReason(end["reason"]) if end else None)
    return ViewState(view["game"], viewer, state, bool(view.get("abandoned")),
                     str(view.get("lang", "en")))


def check_view_format(doc: object, source: str) -> None:
    """Refuse a view of an older format before its schema is checked: a view of format
    ``rebis-pbm/view/1`` lacks the ruleset, which the rules need.

    Raises:
        InputError: the view is of an older format (exit 2).
    """
    if isinstance(doc, dict) and isinstance(doc.get("view"), str) \
            and doc["view"] != VIEW_FORMAT and doc["view"].startswith("rebis-pbm/view/"):
        raise InputError(f"this view is in the older format {doc['view']}, which does not hold "
                         f"the ruleset; ask the referee for a fresh view (format {VIEW_FORMAT}: "
                         f"rebis-pbm view GAME --player NAME --format yaml)", source=source)
