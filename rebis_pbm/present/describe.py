"""What each legal move does, told to its mover from their information set alone (issue 29).

Every move that ``moves`` lists (and ``play`` offers) comes with one sentence in the mover's
language: "8 + on your shelf 3 (weight 11 of 13)", "6 on ana's shelf 2: closes it face down; you
take a golden dust token; ana draws a card", "3 - on ben's shelf 1: value 4 -> 1 (weight 7 of
13); you draw a card". The sentence is read from the engine itself: the move is applied to the
mover's information set (:func:`rebis_pbm.engine.information_set`, where every card they may not
know is ``HIDDEN``) and its events and the shelves after it are told. So it never names a card
the mover may not know: a draw is "a card", whatever the deck holds (docs/views.md).
"""

from __future__ import annotations

import json
from typing import NamedTuple

from rebis_pbm.engine import (
    GOLD,
    GOLDEN_DUST,
    NEGATIVE,
    Move,
    ShelfRef,
    State,
    apply_move,
    information_set,
    legal_moves,
    score_table,
)
from rebis_pbm.engine import events as ev
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.present.i18n import gettext_for, ngettext_for, separator

FORMATS = ("yaml", "json", "text")  # the listing's formats (``moves --format``)


class Draw(NamedTuple):
    """A draw the move causes (R8.1, R8.2; not the next turn's, R6): who draws, and whether the
    deck had a card for them (R9). Never which card."""

    player: str
    card: bool


class Effect(NamedTuple):
    """What a move does, as its mover may know it beforehand.

    Attributes:
        dust: golden dust tokens placed first from the reserve (R6 step 2), on shelf
            ``dust_shelf`` of the mover.
        cards: the cards played (one, or a pair on the mover's own shelf, R7); empty for the
            red token's move (R12).
        owner: whose shelf receives the cards, or the red token.
        shelf: that shelf's number.
        sign: ``positive`` or ``negative`` for a card laid face up; None for a closing play
            (R8.1: its sign does not matter) and the red token.
        closes: the card closes the shelf, face down (R8.1).
        value_before, value_after, weight_after: the shelf's value before and after, its
            weight after (face-up cards only); for a closing play, the closed shelf's, unchanged.
        token: what the closer takes from the supply (R8.1): ``golden_dust``, ``gold`` or
            ``none``; None when the move closes nothing.
        gold_on: where the gold token taken goes (R8.1).
        draws: the draws the move causes, in order (:class:`Draw`).
        score_before, score_after: the score of the shelf the red token goes on (R12, R13).
        ends: why the game ends after this move (R11), or None.
    """

    dust: int
    dust_shelf: int
    cards: tuple[int, ...]
    owner: str
    shelf: int
    sign: str | None
    closes: bool
    value_before: int
    value_after: int
    weight_after: int
    token: str | None
    gold_on: ShelfRef | None
    draws: tuple[Draw, ...]
    score_before: int
    score_after: int
    ends: str | None


class Described(NamedTuple):
    """One listed move: its move file's document (``game`` first), its :class:`Effect` and the
    sentence that tells it."""

    doc: dict[str, object]
    effect: Effect
    description: str


def effect(seen: State, move: Move) -> Effect:
    """What ``move``, legal in ``seen``, does: read from the events and the state that
    :func:`~rebis_pbm.engine.apply_move` gives on ``seen``. Given the mover's information set,
    it knows no hidden card, and says the same as the real game will (tests/test_describe.py).

    Raises:
        IllegalMove: ``move`` is not legal in ``seen``.
    """
    after, events = apply_move(seen, move)
    mover = seen.players.index(move.player)
    dust_shelf = len(seen.shelves[mover])
    if move.red_token is not None:
        ref = move.red_token
        seat = seen.players.index(ref.player)
        before = score_table(seen)[seat].shelves[ref.shelf - 1]
        now = score_table(after)[seat].shelves[ref.shelf - 1]
        return Effect(0, dust_shelf, (), ref.player, ref.shelf, None, False, before.value,
                      now.value, now.weight, None, None, (), before.score, now.score, None)
    assert move.play is not None  # a legal turn's move plays (R6)
    owner = move.play.owner
    seat = seen.players.index(owner)
    shelf = len(seen.shelves[seat])
    closes, token, gold_on, ends = False, None, None, None
    draws: list[Draw] = []
    for event in events:
        if isinstance(event, ev.TurnBegan):
            break  # the next turn's draw (R6) is not this move's
        if isinstance(event, ev.Closed):
            closes = True
        elif isinstance(event, ev.TokenTaken):
            token = "none" if event.kind is None else str(event.kind)
        elif isinstance(event, ev.TokenPlaced) and event.kind == GOLD:
            gold_on = ShelfRef(event.owner, event.shelf)
        elif isinstance(event, ev.Drew):
            draws.append(Draw(event.player, event.card is not None))
        elif isinstance(event, ev.GameEnded):
            ends = str(event.reason)
    old = seen.shelves[seat][shelf - 1]
    new = after.shelves[seat][shelf - 1]
    sign = None if closes else str(move.play.sign)
    return Effect(move.golden_dust, dust_shelf, move.play.cards, owner, shelf, sign, closes,
                  old.value, new.value, new.weight, token, gold_on, tuple(draws), 0, 0, ends)


def tell(said: Effect, mover: str, limit: int, lang: str | None = None) -> str:
    """The sentence of an :class:`Effect` for ``mover`` (whose move it is), in ``lang``
    (default English); ``limit`` is the ruleset's shelf limit (R4). Its clauses are joined as an
    account's are (:func:`~rebis_pbm.present.i18n.separator`: ``" ; "`` with a no-break space in
    French, ``"; "`` otherwise)."""
    _, n_ = gettext_for(lang), ngettext_for(lang)
    parts: list[str] = []
    if said.dust:
        parts.append(n_("{count} golden dust token from your reserve on your shelf {shelf}",
                        "{count} golden dust tokens from your reserve on your shelf {shelf}",
                        said.dust).format(count=said.dust, shelf=said.dust_shelf))
    mine = said.owner == mover
    if not said.cards:  # the red token (R12)
        text = (_("the red token on your shelf {shelf}: score {before} -> {after}") if mine else
                _("the red token on {owner}'s shelf {shelf}: score {before} -> {after}"))
        parts.append(text.format(owner=said.owner, shelf=said.shelf, before=said.score_before,
                                 after=said.score_after))
        return separator(lang).join(parts)
    cards = (str(said.cards[0]) if len(said.cards) == 1 else
             _("{first} and {second}").format(first=said.cards[0], second=said.cards[1]))
    if said.closes:
        parts.append(_("{card} on {owner}'s shelf {shelf}: closes it face down").format(
            card=cards, owner=said.owner, shelf=said.shelf))
    elif mine:
        parts.append(_("{cards} + on your shelf {shelf} (weight {weight} of {limit})").format(
            cards=cards, shelf=said.shelf, weight=said.weight_after, limit=limit))
    else:
        parts.append(_("{card} {sign} on {owner}'s shelf {shelf}: value {before} -> {after} "
                       "(weight {weight} of {limit})").format(
            card=cards, sign="-" if said.sign == NEGATIVE else "+", owner=said.owner,
            shelf=said.shelf, before=said.value_before, after=said.value_after,
            weight=said.weight_after, limit=limit))
    if said.token == GOLDEN_DUST:
        parts.append(_("you take a golden dust token"))
    elif said.token == GOLD and said.gold_on is not None:
        parts.append((_("you take a gold token and place it on your shelf {shelf}")
                      if said.gold_on.player == mover else
                      _("you take a gold token and place it on {owner}'s shelf {shelf}")).format(
            owner=said.gold_on.player, shelf=said.gold_on.shelf))
    elif said.token == "none":
        parts.append(_("you take no token: the supply has none left"))
    for draw in said.draws:
        if draw.player == mover:
            parts.append(_("you draw a card") if draw.card else
                         _("you draw nothing: the deck is empty"))
        else:
            parts.append((_("{player} draws a card") if draw.card else
                          _("{player} draws nothing: the deck is empty")).format(
                player=draw.player))
    if said.ends is not None:
        from rebis_pbm.present.wording import end_words  # why a game ends, worded once (R11)
        parts.append(_("the game ends: {why}").format(why=end_words(said.ends, lang)))
    return separator(lang).join(parts)


def described_moves(game: str, state: State, lang: str | None = None) -> list[Described]:
    """Every legal move of the player to move in ``state``, in :func:`~rebis_pbm.engine.
    legal_moves`' order, each with its document, effect and sentence (in ``lang``). Computed on
    that player's information set (``state`` may be the referee's full state or one rebuilt
    from a view): nothing hidden from them can reach a sentence. Empty when the game is over."""
    if state.to_move is None:
        return []
    seen = information_set(state, state.to_move)
    mover = seen.players[seen.to_move] if seen.to_move is not None else ""
    limit = seen.ruleset.shelf_limit
    listed: list[Described] = []
    for move in legal_moves(seen):
        said = effect(seen, move)
        listed.append(Described({"game": game, **move.as_dict()}, said,
                                tell(said, mover, limit, lang)))
    return listed


def described_listing(game: str, state: State, fmt: str, lang: str | None = None) -> str:
    """Every legal move of the player to move, each a complete move file that ``apply``
    accepts, with what it does (:func:`described_moves`, in ``lang``).

    ``yaml``: one document per move, each after a ``---`` line and a comment line that says what
    it does (a saved document is a move file as it is); ``json``: a list of ``{"description",
    "move"}`` objects, ``move`` the move file's document; ``text``: one numbered line per move.
    It shows that player's hand, so it is for them alone (docs/views.md).

    Raises:
        ValueError: an unknown format.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: use yaml, json or text")
    listed = described_moves(game, state, lang)
    if fmt == "json":
        return json.dumps([{"description": d.description, "move": d.doc} for d in listed],
                          indent=2, ensure_ascii=False) + "\n"
    if fmt == "yaml":
        return "".join(f"---\n# {d.description}\n" + dump_yaml(d.doc) for d in listed)
    return "".join(f"{n}. {d.description}\n" for n, d in enumerate(listed, 1))


__all__ = ["FORMATS", "Described", "Draw", "Effect", "described_listing", "described_moves",
           "effect", "tell"]
