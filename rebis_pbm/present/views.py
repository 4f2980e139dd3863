"""Views: what one player, or a spectator, may know of a game (docs/views.md), in one place.

The façade of the presentation of a view: its public names, from the modules that each hold one
concern of it (docs/api.md imports them from here):

* :mod:`.shapes`: the view's shape (``View``, ``ShelfView``, ...);
* :mod:`.build`: a viewer's view of a game (:func:`build_view`, :func:`join_view`), their
  move template and legal moves, ``VIEW_FORMAT`` and ``PUBLIC``;
* :mod:`.wording`: the words of events, cards, counts and where a game stands;
* :mod:`.text`: the text view; :mod:`.yaml_view`: the YAML view; :mod:`.svg`: the picture;
* :mod:`.render`: the view in a format (:func:`render`).

A view is built from the replayed state and history, cut down to the viewer's information set:
their own hand and draws, everything face up, hand sizes, the face-down cards they placed
themselves, the supply and reserves, and the public history. Never another player's hand, the deck
order, a face-down card the viewer did not place (the cards dealt face down at setup are hidden from
everyone, owner included, R5), or the seed. Once the record reveals the seed (docs/audit.md),
anyone can compute every card, and views show every face-down card.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rebis_pbm.present.build import (
    LAST_CARD,
    LAST_TOKEN,
    LAST_TURN,
    PUBLIC,
    RECENT_MOVES,
    VIEW_FORMAT,
    build_view,
    end_warnings,
    join_view,
    move_template,
    moves_listing,
    signed_note,
)
from rebis_pbm.present.render import render
from rebis_pbm.present.text import render_text, ruleset_text, tokens_text
from rebis_pbm.present.wording import (
    JOIN_PLACEHOLDER,
    TOKEN_WORDS,
    a_card,
    account,
    counted,
    describe,
    end_line,
    end_words,
    is_join_placeholder,
    moment,
    standing,
    winners_line,
    witness_line,
)

if TYPE_CHECKING:
    from rebis_pbm.present.shapes import (
        CardView,
        EndView,
        HistoryEntry,
        PlayerView,
        ShelfView,
        View,
    )

_SHAPES = ("CardView", "EndView", "HistoryEntry", "PlayerView", "ShelfView", "View")


def __getattr__(name: str) -> object:
    """The view's types (``View``, ``ShelfView``, ...) when asked for at run time: taken from
    :mod:`.shapes`, which a command that only builds and renders views does not import."""
    if name in _SHAPES:
        from rebis_pbm.present import shapes

        return getattr(shapes, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["JOIN_PLACEHOLDER", "LAST_CARD", "LAST_TOKEN", "LAST_TURN", "PUBLIC", "RECENT_MOVES",
           "TOKEN_WORDS", "VIEW_FORMAT", "CardView", "EndView", "HistoryEntry", "PlayerView",
           "ShelfView", "View", "a_card", "account", "build_view", "counted", "describe",
           "end_line", "end_warnings", "end_words", "is_join_placeholder", "join_view", "moment",
           "move_template", "moves_listing", "render", "render_text", "ruleset_text", "signed_note",
           "standing", "tokens_text", "winners_line", "witness_line"]
