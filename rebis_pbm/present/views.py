"""Views: what one player, or a spectator, may know of a game (docs/views.md).

A view is built from the replayed state and history, cut down to the viewer's information set:
their own hand and draws, everything face up, hand sizes, the face-down cards they placed
themselves, the supply and reserves, and the public history. Never another player's hand, the deck
order, a face-down card the viewer did not place (the cards dealt face down at setup are hidden from
everyone, owner included, R5), or the seed. Once the record reveals the seed (docs/audit.md),
anyone can compute every card, and views show every face-down card.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from rebis_pbm.engine import burdens, information_set, legal_moves, score_table, winners
from rebis_pbm.engine import events as ev
from rebis_pbm.engine.cards import DEALT, GOLD, GOLDEN_DUST, NEGATIVE, POSITIVE, RED, Shelf
from rebis_pbm.engine.state import FINISHED, PLAY, RED_TOKEN, State
from rebis_pbm.formats.yaml_reader import dump_yaml
from rebis_pbm.present.i18n import ENGLISH, N_, gettext_for, in_every_language, ngettext_for
from rebis_pbm.record import Replay

VIEW_FORMAT = "rebis-pbm/view/2"  # 2: the ruleset in force (a player's tools need it), the
# record's witness, and the join phase's view
PUBLIC = "public"  # the spectator view's name; no player may take it
RECENT_MOVES = 4   # moves shown in a view's history: at least one round of a 4-player game

# why a game ended (R11), for every text that says it: end_words
_END_WORDS = {ev.DECK_EMPTY: N_("the deck is empty"), ev.TOKENS_EXHAUSTED:
              N_("no golden dust and no gold token is left in the supply")}
# a token kind's name, the one wording of it: the text view's counts (tokens_text), the picture
TOKEN_WORDS = {GOLDEN_DUST: N_("golden dust"), GOLD: N_("gold"), RED: N_("red")}


def a_card(number: int, lang: str | None = None) -> str:
    """"a 7", "an 8", "an 11": a card's number with its article, for sentences (in ``lang``:
    "un 7", "um 7").

    >>> a_card(7), a_card(8), a_card(11), a_card(18), a_card(80), a_card(8, "fr")
    ('a 7', 'an 8', 'an 11', 'an 18', 'an 80', 'un 8')
    """
    if lang and lang != ENGLISH:
        _ = gettext_for(lang)
        return _("a {card}").format(card=number)
    spoken_with_vowel = number in (8, 11, 18) or 80 <= number <= 89
    return f"{'an' if spoken_with_vowel else 'a'} {number}"


def counted(count: int, word: str) -> str:
    """"1 card", "2 cards": a count with its noun (regular plural).

    >>> counted(1, "card"), counted(0, "move"), counted(3, "move")
    ('1 card', '0 moves', '3 moves')
    """
    return f"{count} {word}{'' if count == 1 else 's'}"


def _shelf_of(owner: str, shelf: int, viewer: str | None, _) -> str:
    """"your shelf 2" or "bob's shelf 2", in the language of ``_`` (a gettext)."""
    if owner == viewer:
        return _("your shelf {shelf}").format(shelf=shelf)
    return _("{owner}'s shelf {shelf}").format(owner=owner, shelf=shelf)


def describe(event, viewer: str | None, lang: str | None = None,
             stand_in: bool = False) -> str | None:
    """One event as a sentence for ``viewer`` (a player's name; None for a spectator), in
    ``lang`` (:mod:`rebis_pbm.present.i18n`; default English).

    Hidden cards appear only to who may see them: a draw shows its card to the drawer alone
    ("you drew a 7", "bob drew 1 card"); the card that closes a shelf is shown to its closer alone.
    ``stand_in``: the event is of a move the referee made for its player (a missed deadline,
    ``move-for``): what was laid or placed is told to that player as the referee's doing ("the
    referee played 9 with sign + on your shelf 1"), not as theirs. Returns None for an event with
    nothing to say.
    """
    _ = gettext_for(lang)
    you = event.player == viewer if hasattr(event, "player") else False
    player = getattr(event, "player", None)
    if stand_in and you:
        told = _stand_in_event(event, viewer, _)
        if told is not None:
            return told
    if isinstance(event, ev.Dealt):
        return _("each player was dealt 1 face-down card, starting their shelf 1, and "
                 "{hand_size} cards in hand").format(hand_size=event.hand_size)
    if isinstance(event, ev.TurnBegan):
        return (_("turn {turn} began: you to move") if you else
                _("turn {turn} began: {player} to move")).format(turn=event.turn, player=player)
    if isinstance(event, ev.Drew):
        why = {ev.TURN_DRAW: "", ev.NEGATIVE_DRAW: _(" for playing a - card"),
               ev.CLOSED_DRAW: _(" because a shelf was closed")}[event.cause]
        if event.card is None:
            return (_("you drew nothing{why}: the deck is empty") if you else
                    _("{player} drew nothing{why}: the deck is empty")).format(
                        player=player, why=why)
        if you:
            return _("you drew {card}{why}").format(card=a_card(event.card, lang), why=why)
        return _("{player} drew 1 card{why}").format(player=player, why=why)
    if isinstance(event, ev.DustPlaced):
        return (_("you placed {count} golden dust from the reserve on your shelf {shelf}") if you
                else _("{player} placed {count} golden dust from the reserve on {player}'s shelf "
                       "{shelf}")).format(player=player, count=event.count, shelf=event.shelf)
    if isinstance(event, ev.Played):
        cards, sign = _played(event, _)
        return (_("you played {cards} with sign {sign} on {shelf}") if you else
                _("{player} played {cards} with sign {sign} on {shelf}")).format(
                    player=player, cards=cards, sign=sign,
                    shelf=_shelf_of(event.owner, event.shelf, viewer, _))
    if isinstance(event, ev.Closed):
        shelf = _shelf_of(event.owner, event.shelf, viewer, _)
        if you:
            return _("you closed {shelf} with a face-down {card}, which starts shelf "
                     "{new_shelf}").format(shelf=shelf, card=event.card,
                                           new_shelf=event.new_shelf)
        return _("{player} closed {shelf} with a face-down card, which starts shelf "
                 "{new_shelf}").format(player=player, shelf=shelf, new_shelf=event.new_shelf)
    if isinstance(event, ev.TokenTaken):
        if event.kind is None:
            text = (_("you took no token: the supply has none left") if you else
                    _("{player} took no token: the supply has none left"))
        elif event.kind == GOLDEN_DUST:
            text = (_("you took a golden dust token into the reserve") if you else
                    _("{player} took a golden dust token into the reserve"))
        elif event.kind == GOLD:
            text = _("you took a gold token") if you else _("{player} took a gold token")
        else:
            text = _("you took a red token") if you else _("{player} took a red token")
        return text.format(player=player)
    if isinstance(event, ev.TokenPlaced):
        shelf = _shelf_of(event.owner, event.shelf, viewer, _)
        if event.kind == RED:
            text = (_("you placed the red token on {shelf}") if you else
                    _("{player} placed the red token on {shelf}"))
        elif event.kind == GOLD:
            text = (_("you placed the gold token on {shelf}") if you else
                    _("{player} placed the gold token on {shelf}"))
        else:
            text = (_("you placed the golden dust token on {shelf}") if you else
                    _("{player} placed the golden dust token on {shelf}"))
        return text.format(player=player, shelf=shelf)
    if isinstance(event, ev.GameEnded):
        return _("the game ended: {why}").format(why=end_words(event.reason, lang))
    if isinstance(event, ev.RedTokenAwarded):
        return (_("you have the highest burden and must place the red token") if you else
                _("{player} has the highest burden and must place the red token")).format(
                    player=player)
    if isinstance(event, ev.GameFinished):
        return _("the score is final")
    raise TypeError(f"unknown event {event!r}")


def _played(event: ev.Played, _: Callable[[str], str]) -> tuple[str, str]:
    """The cards of a play ("7", "4 and 4") and its sign ("+", "-"), as the accounts say them."""
    cards = (str(event.cards[0]) if len(event.cards) == 1 else
             _("{first} and {second}").format(first=event.cards[0], second=event.cards[1]))
    return cards, "-" if event.sign == NEGATIVE else "+"


def _stand_in_event(event, viewer: str | None, _) -> str | None:
    """``event`` of a move the referee made for ``viewer``, told to them ("the referee played
    ..."); None for an event told as usual (a draw, a token taken: theirs either way)."""
    if isinstance(event, ev.Played):
        cards, sign = _played(event, _)
        return _("the referee played {cards} with sign {sign} on {shelf}").format(
            cards=cards, sign=sign,
            shelf=_shelf_of(event.owner, event.shelf, viewer, _))
    if isinstance(event, ev.Closed):
        return _("the referee closed {shelf} with a face-down {card} of your hand, which "
                 "starts shelf {new_shelf}").format(
                     shelf=_shelf_of(event.owner, event.shelf, viewer, _), card=event.card,
                     new_shelf=event.new_shelf)
    if isinstance(event, ev.DustPlaced):
        return _("the referee placed {count} golden dust from the reserve on your shelf "
                 "{shelf}").format(count=event.count, shelf=event.shelf)
    if isinstance(event, ev.TokenPlaced):
        shelf = _shelf_of(event.owner, event.shelf, viewer, _)
        text = {RED: _("the referee placed the red token on {shelf}"),
                GOLD: _("the referee placed the gold token on {shelf}")}.get(
                    event.kind, _("the referee placed the golden dust token on {shelf}"))
        return text.format(shelf=shelf)
    return None


# The reasons the record gives for a move the referee made (deadlines.MISSED, ON_REQUEST,
# REPLACED), as a player reads them.
_STAND_IN_REASONS = {"missed deadline": N_("missed deadline"),
                     "on the player's request": N_("on the player's request"),
                     "replaced by the bot after missed deadlines":
                         N_("replaced by the bot after missed deadlines")}


def account(events, viewer: str | None = None, lang: str | None = None,
            stand_in: str | None = None) -> str:
    """A paragraph telling ``events`` to ``viewer`` (None: anyone, no hidden card named), in
    ``lang`` (default English). ``stand_in``: the events are of a move the referee made for
    its player, for this reason (the record's ``reason``, e.g. ``missed deadline``): the
    paragraph says so first ("the referee moved for you (missed deadline); the referee played
    ...")."""
    told = ((describe(e, viewer, lang, stand_in=True) for e in events) if stand_in is not None
            else (describe(e, viewer, lang) for e in events))
    sentences = [s for s in told if s]
    text = "; ".join(sentences) + "." if sentences else ""
    if stand_in is None:
        return text
    _ = gettext_for(lang)
    mover = next((e.player for e in events if isinstance(
        e, (ev.Played, ev.Closed, ev.DustPlaced, ev.TokenPlaced))), None)
    why = _(_STAND_IN_REASONS[stand_in]) if stand_in in _STAND_IN_REASONS else stand_in
    lead = (_("the referee moved for you ({reason})") if mover is not None and mover == viewer
            else _("the referee moved for {player} ({reason})")).format(player=mover, reason=why)
    return f"{lead}; {text}" if text else lead + "."


def _card(card, seat: int, viewer_seat: int | None, seats, revealed: bool = False) -> dict:
    out: dict = {}
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


def _shelf_view(real: Shelf, seen: Shelf, seat: int, number: int, active: bool, score: int,
                viewer_seat: int | None, seats: tuple[str, ...], revealed: bool) -> dict:
    """A shelf's entry in a view: ``seen`` (the viewer's information set of the shelf ``real``
    of the player in ``seat``) as a new dict, a copy of the one kept for every viewer who sees
    ``real`` alike.

    Kept because ``apply`` writes ten views, and every view has every shelf of the game, most of
    them closed: a shelf no move touched is the same object in the next state, so each is built
    and rendered (:func:`_view_yaml`, :func:`render_text`) once per way it is seen rather than
    once per view. What a viewer sees of a shelf is decided by the shelf, its place (``seat``,
    ``number``, ``active``, ``score``), the seats' names and whether the seed is revealed, and,
    before that, by whether the viewer laid one of its face-down cards (the only cards shown to
    some and not to others): the key of the entry kept (:data:`_SHELF_VIEWS`). A closed shelf is
    so seen two ways: by its closer, and by everyone else (the spectator too).

    The copy is the caller's to change: the entry keeps its own dict, and rendering uses its
    texts only while the copy is equal to it (:func:`_kept_shelf`)."""
    global _SHELF_VIEWS, _VIEWED
    known = _SHELF_VIEWS
    if len(known) > _KEPT:
        known = _SHELF_VIEWS = {}
    entry = known.get(id(real))
    if entry is None or entry[0] is not real:  # an id another shelf had is not this shelf's
        entry = known[id(real)] = (real, frozenset(c.placed_by for c in real.cards
                                                   if not c.factor), {})
    laid = not revealed and viewer_seat is not None and viewer_seat in entry[1]
    key = (seat, number, active, score, seats, revealed, viewer_seat if laid else None)
    kept = entry[2].get(key)
    if kept is None:
        kept = entry[2][key] = _KeptShelf({
            "shelf": number,
            "active": active,
            "weight": seen.weight,
            "value": seen.value,
            "tokens": list(seen.tokens),
            "score": score,
            "cards": [_card(c, seat, viewer_seat, seats, revealed) for c in seen.cards],
        })
    shown = kept.view
    copy = {**shown, "tokens": shown["tokens"].copy(),
            "cards": list(map(dict.copy, shown["cards"]))}
    viewed = _VIEWED
    if len(viewed) > _KEPT:
        viewed = _VIEWED = {}
    viewed[id(copy)] = (copy, kept)  # held: no other dict takes its id while it is here
    return copy


class _KeptShelf:
    """A shelf's entry as some viewers see it (:func:`_shelf_view`), never handed out, and its
    renderings, made when first asked for: its YAML as a view's YAML writes a shelf, and its
    lines of the text view by language."""

    __slots__ = ("lines", "view", "yaml")

    def __init__(self, view: dict) -> None:
        self.view = view
        self.yaml: str | None = None
        self.lines: dict[str | None, list[str]] = {}


# The shelves' entries kept, by the id of the engine's shelf: (the shelf, held so that no other
# takes its id; the seats that laid its face-down cards; {(seat, number, active, score, seats,
# revealed, the viewer's seat if they laid one of them, else None): _KeptShelf}).
_SHELF_VIEWS: dict[int, tuple[Shelf, frozenset[int], dict[tuple, _KeptShelf]]] = {}
# The shelf entries handed out in views, by id: (the entry, held; its _KeptShelf). A view built
# before this is emptied is rendered in full: slower, the same text.
_VIEWED: dict[int, tuple[dict, _KeptShelf]] = {}
_KEPT = 8192  # each of the caches above is emptied when it holds more entries than this
# The last state whose views were built (held, compared with is), its score table and its
# burdens: the same for every viewer (build_view).
_PUBLIC: tuple = (None, (), ())


def _kept_shelf(shelf: dict) -> _KeptShelf | None:
    """The kept entry that ``shelf`` (a view's shelf entry) is a copy of, if it still equals it;
    else None (a shelf built otherwise, or changed since: rendered as it is)."""
    got = _VIEWED.get(id(shelf))
    if got is None or got[0] is not shelf or shelf != got[1].view:
        return None
    return got[1]


def build_view(game: str, replay: Replay, viewer: str | None, *, revealed: bool = False,
               abandoned: bool = False, addresses: dict[str, str] | None = None,
               lang: str | None = None, stand_ins: dict[int, str] | None = None) -> dict:
    """The view of ``viewer`` (a player's name, or None for the public spectator view).

    ``revealed``: the record reveals the seed (the game is over, or abandoned), so anyone can
    compute every card; the view then shows every face-down card's number and says so
    (``seed_revealed``). Before that, a face-down card shows its number only to the player who
    laid it, and a card dealt face down at setup to nobody (R5, R8.1).

    ``abandoned``: the seed was revealed before the end (``Record.abandoned``): nobody is to
    move any more, so the view has no ``to_move``, no draw and no move template.

    ``addresses`` (player -> e-mail address) are shown in every player's entry; pass
    ``Record.shown_addresses()``, which is empty unless the game made them public.

    ``lang``: the language of the view's sentences (its history, warnings and move template's
    comments; :mod:`rebis_pbm.present.i18n`), for the text view of a player who reads another
    language
    than English. The YAML and JSON views are built in English (the default): they are data.

    ``stand_ins``: the moves the referee made for a player, ``{turn: reason}``
    (``referee.stand_ins``): their history entries say so, in ``by: referee``, ``reason`` and
    ``account`` (the move told as the referee's, :func:`account`; ``text`` stays the events
    told as they are, as views have always had it).

    Returns a dict matching ``schemas/view.schema.json``, the caller's to change. Its shelves are
    copies of entries kept for the next view of the same shelves (a closed shelf is in every view
    of every later move): kept apart for each way a viewer may see a shelf, so that no view shows
    more than its viewer's information set (see ``_shelf_view``). Raises ValueError for an
    unknown viewer.
    """
    global _PUBLIC
    addresses = addresses or {}
    viewer_seat = None if viewer is None else replay.state.seat(viewer)
    # Built from the viewer's information set only: no hidden card is even within reach (once
    # the seed is revealed, every face-down card is public and the full state is shown).
    state = replay.state if revealed else information_set(replay.state, viewer_seat)
    if _PUBLIC[0] is not replay.state:
        # The scores (face-up cards and tokens, R13) and R12's burdens during the game (face-up -
        # cards and hand sizes) are public, the same in every viewer's information set: counted
        # once for the views of a state, not once per view.
        _PUBLIC = (replay.state, score_table(state), burdens(state))
    scores = {p.player: p for p in _PUBLIC[1]}
    burden_of = {b.player: {"negative": b.negative, "hand": b.hand, "total": b.total}
                 for b in _PUBLIC[2]}
    players = []
    for seat, name in enumerate(state.players):
        row = state.shelves[seat]
        shelf_scores = scores[name].shelves
        shelves = [_shelf_view(real, seen, seat, number, number == len(row),
                               shelf_scores[number - 1].score, viewer_seat, state.players,
                               revealed)
                   for number, (real, seen) in enumerate(
                       zip(replay.state.shelves[seat], row, strict=True), start=1)]
        players.append({
            "name": name,
            **({"address": addresses[name]} if name in addresses else {}),
            "seat": seat + 1,
            "hand": len(state.hands[seat]),
            "reserve": state.reserves[seat],
            "score": scores[name].total,
            "burden": burden_of[name],
            "shelves": shelves,
        })
    view: dict = {
        "view": VIEW_FORMAT,
        "game": game,
        "viewer": PUBLIC if viewer is None else viewer,
        "phase": state.phase,
        "turn": state.turn,
        "ruleset": state.ruleset.as_dict(),
    }
    if abandoned:
        view["abandoned"] = True
    elif state.phase != FINISHED:
        view["to_move"] = state.player_to_move
    if revealed:
        view["seed_revealed"] = True
    view["deck"] = state.deck_count
    view["supply"] = {"golden_dust": state.supply.golden_dust, "gold": state.supply.gold,
                      "red": state.supply.red}
    if state.phase == PLAY and not abandoned:
        warnings = end_warnings(state.deck_count, state.supply.golden_dust, state.supply.gold,
                                lang)
        if warnings:
            view["warnings"] = warnings
    if viewer_seat is not None:
        you: dict = {"hand": list(state.hands[viewer_seat]), "reserve": state.reserves[viewer_seat]}
        if state.phase == PLAY and state.to_move == viewer_seat and not abandoned:
            you["drawn"] = state.drawn
        view["you"] = you
    view["players"] = players
    view["history"] = _history(replay, viewer, lang, stand_ins or {})
    if state.phase in (RED_TOKEN, FINISHED):
        view["end"] = _end(state)
    if viewer_seat is not None and state.to_move == viewer_seat and not abandoned:
        view["move_template"] = move_template(game, state, lang)
    return view


LAST_TURN, LAST_CARD, LAST_TOKEN = "last_turn", "last_card", "last_token"


def end_warnings(deck: int, golden_dust: int, gold: int, lang: str | None = None) -> list[dict]:
    """What may end the game at the end of this turn (R11), for a game in play: from the deck
    count after this turn's draw and the supply's golden dust and gold only, which everyone
    sees, so a warning never tells a hidden card.

    Returns a list of ``{"warning": code, "text": sentence}``: ``last_turn`` (the deck is
    empty: the game ends after this turn), ``last_card`` (one card left: a - card or a closed
    shelf draws it, and the game ends after this turn), ``last_token`` (one golden dust or gold
    token left in the supply: closing a shelf takes it, and the game ends after this turn).
    The sentences are in ``lang`` (default English).

    >>> [w["warning"] for w in end_warnings(0, 3, 1)], end_warnings(5, 0, 2)
    (['last_turn'], [])
    >>> [w["warning"] for w in end_warnings(1, 0, 1)]
    ['last_card', 'last_token']
    """
    _ = gettext_for(lang)
    if deck == 0:
        return [{"warning": LAST_TURN, "text": _("Last turn: the deck is empty, so the game "
                                                 "ends after this turn (R11).")}]
    warnings = []
    if deck == 1:
        warnings.append({"warning": LAST_CARD, "text": _(
            "One card is left in the deck: if this turn plays a - card or closes a shelf, that "
            "draw takes it and the game ends after this turn (R11).")})
    if golden_dust + gold == 1:
        text = (_("The last golden dust token is in the supply: closing a shelf this turn takes "
                  "it, and then no golden dust and no gold is left, so the game ends after this "
                  "turn (R11).") if golden_dust else
                _("The last gold token is in the supply: closing a shelf this turn takes it, and "
                  "then no golden dust and no gold is left, so the game ends after this turn "
                  "(R11)."))
        warnings.append({"warning": LAST_TOKEN, "text": text})
    return warnings


def _history(replay: Replay, viewer: str | None, lang: str | None = None,
             stand_ins: dict[int, str] | None = None) -> list[dict]:
    entries = []
    if len(replay.history) < RECENT_MOVES:
        entries.append({"turn": 0, "player": None,
                        "text": account(replay.setup_events, viewer, lang)})
    for move, events in replay.history[-RECENT_MOVES:]:
        entry = {"turn": move.turn, "player": move.player, "text": account(events, viewer, lang)}
        reason = (stand_ins or {}).get(move.turn)
        if reason is not None:  # the referee made it for its player: told as the referee's
            entry.update({"by": "referee", "reason": reason,
                          "account": account(events, viewer, lang, stand_in=reason)})
        entries.append(entry)
    return entries


def _end(state: State) -> dict:
    end: dict = {
        "reason": state.end_reason,
        "burdens": [{"player": b.player, "negative": b.negative, "hand": b.hand, "total": b.total}
                    for b in burdens(state)],
    }
    if state.phase == RED_TOKEN:
        end["red_token"] = state.player_to_move
    else:
        end["scores"] = [{"player": p.player, "total": p.total} for p in score_table(state)]
        end["winners"] = list(winners(state))
    return end


def move_template(game: str, state: State, lang: str | None = None) -> str:
    """A move file for the player to move, ready to edit: a legal example with comments (in
    ``lang``, default English; the YAML keys and values stay as the move schema has them).

    It uses only what that player knows (their hand, public shelves, supply and reserve).
    """
    _ = gettext_for(lang)
    example = legal_moves(state)[0].as_dict()
    doc = {"game": game, **example}
    if state.phase == RED_TOKEN:
        notes = (_("Your last move: place the red token on any shelf in play (R12).\n"
                   "red_token: player = the shelf's owner, shelf = its number."))
    else:
        notes = (_("Your move: edit this example and send it (the referee can list every legal\n"
                   "move for you with rebis-pbm moves).\n"
                   "golden_dust: tokens from your reserve onto your active shelf first (R6).\n"
                   "play.cards: one number, or [n, n] for a pair on your own shelf (R7).\n"
                   "play.shelf: whose active shelf; play.sign: positive or negative (R8).\n"
                   "gold_token: {player, shelf} only when your card closes a shelf and the supply\n"
                   "  has no golden dust left (R8.1)."))
    return "".join(f"# {line}\n" for line in notes.split("\n")) + dump_yaml(doc)


def moves_listing(game: str, state: State, fmt: str) -> str:
    """Every legal move of the player to move, each a complete move file that ``apply`` accepts.

    ``yaml``: one document per move, each after a ``---`` line; ``json``: a list of documents.
    It shows that player's hand, so it is for them alone (docs/views.md).
    """
    docs = [{"game": game, **m.as_dict()} for m in legal_moves(state)]
    if fmt == "json":
        return json.dumps(docs, indent=2) + "\n"
    if fmt == "yaml":
        return "".join("---\n" + dump_yaml(d) for d in docs)
    raise ValueError(f"unknown format {fmt!r}: use yaml or json")


def render(view: dict, fmt: str, lang: str | None = None) -> str:
    """The view as ``yaml``, ``json``, ``text`` or ``svg`` (a picture of the table); ``lang``
    is the language of the text (default English; build the view in the same language).

    The YAML and the text of a shelf whose entry :func:`build_view` built, unchanged since, are
    written once per way it is seen and language, and kept for the next views (``_view_yaml``,
    :func:`render_text`): the same text as written afresh."""
    if fmt == "yaml":
        return _view_yaml(view)
    if fmt == "json":
        return json.dumps(view, indent=2, ensure_ascii=False) + "\n"
    if fmt == "text":
        return render_text(view, lang)
    if fmt == "svg":
        from rebis_pbm.present.svg import (
            render_svg,  # here: ElementTree is loaded only for a picture
        )

        return render_svg(view, lang=lang)
    raise ValueError(f"unknown format {fmt!r}: use text, yaml, json or svg")


def _items(text: str, at: str, mark: str, count: int) -> list[str] | None:
    """The ``count`` items of a block sequence that ``dump_yaml`` wrote in ``text`` after the
    lines ``at``, each starting with ``mark`` (its indentation, a dash and a space) and ending
    with its line break; None when ``text`` is not so (some scalar of theirs looks like an
    item: not cut)."""
    if not text.startswith(at):
        return None
    pieces = text[len(at) - 1:].split("\n" + mark)[1:]
    if len(pieces) != count:
        return None
    pieces[-1] = pieces[-1][:-1]  # the document's last line break: each piece gets its own
    return [mark + piece + "\n" for piece in pieces]


# What dump_yaml writes before a view's shelves, and before their cards, nested as a view nests
# them; and how each of them starts.
_SHELVES_AT, _SHELF_MARK = "players:\n- shelves:\n", "  - "
_CARDS_AT, _CARD_MARK = "players:\n- shelves:\n  - cards:\n", "    - "
# A card's YAML in a view, by its entry's items: few cards differ (a number, a sign or a face,
# who laid it). Emptied when it holds _KEPT cards.
_CARD_YAML: dict[tuple, str] = {}


def _shelves_yaml(new: list[_KeptShelf]) -> bool:
    """Write the YAML of the kept shelves ``new`` (``_KeptShelf.yaml``), as a view writes them:
    their entries but their cards in one document, and their cards from :data:`_CARD_YAML` (the
    few not there in another). False when some entry is not as :func:`_shelf_view` builds them
    (nothing is kept then)."""
    global _CARD_YAML
    if any(next(reversed(kept.view)) != "cards" or not kept.view["cards"] for kept in new):
        return False
    heads = _items(dump_yaml({"players": [{"shelves": [
        {k: v for k, v in kept.view.items() if k != "cards"} for kept in new]}]}),
        _SHELVES_AT, _SHELF_MARK, len(new))
    if heads is None:
        return False
    cards = _CARD_YAML
    if len(cards) > _KEPT:
        cards = _CARD_YAML = {}
    rows = [[tuple(card.items()) for card in kept.view["cards"]] for kept in new]
    unknown = {key: dict(key) for row in rows for key in row if key not in cards}
    if unknown:
        texts = _items(dump_yaml({"players": [{"shelves": [{"cards": list(unknown.values())}]}]}),
                       _CARDS_AT, _CARD_MARK, len(unknown))
        if texts is None:
            return False
        cards.update(zip(unknown, texts, strict=True))
    for kept, head, row in zip(new, heads, rows, strict=True):
        kept.yaml = head + "    cards:\n" + "".join([cards[key] for key in row])
    return True


def _view_yaml(view: dict) -> str:
    """``dump_yaml(view)``, the same text, with the YAML of each shelf kept (:func:`_kept_shelf`)
    rather than written again: a view's shelves are most of it, and a closed shelf is the same in
    every view of every move. A mapping's entries, and a block sequence's items, are written
    each on their own lines, whatever their neighbours, so the view is written in pieces: the
    entries before ``players``, each player without its shelves, its shelves, the entries after.
    A view any of whose shelves is not kept (not built by :func:`build_view`, or changed since)
    is written whole."""
    players = view.get("players")
    if type(players) is not list or not players:
        return dump_yaml(view)
    rows = []
    for player in players:
        if type(player) is not dict or len(player) < 2 or next(reversed(player)) != "shelves":
            return dump_yaml(view)
        shelves = player["shelves"]
        if type(shelves) is not list or not shelves:
            return dump_yaml(view)
        row = [_kept_shelf(shelf) for shelf in shelves]
        if None in row:
            return dump_yaml(view)
        rows.append(row)
    new = list({id(kept): kept for row in rows for kept in row if kept.yaml is None}.values())
    if new and not _shelves_yaml(new):
        return dump_yaml(view)
    parts = []
    for player, row in zip(players, rows, strict=True):
        head = dump_yaml({"players": [{k: v for k, v in player.items() if k != "shelves"}]})
        parts.append(head[len("players:\n"):])
        parts.append("  shelves:\n")
        parts += (kept.yaml for kept in row)
    keys = list(view)
    at = keys.index("players")
    before = dump_yaml({k: view[k] for k in keys[:at]}) if at else ""
    after = dump_yaml({k: view[k] for k in keys[at + 1:]}) if at + 1 < len(keys) else ""
    if any(piece.endswith("...\n") for piece in (before, *parts)):
        return dump_yaml(view)  # a piece that ends its document: not a piece of a mapping
    return before + "players:\n" + "".join(parts) + after


def _card_text(card: dict) -> str:
    if card.get("face") == "down":
        return f"[{card['number']}]" if "number" in card else "[?]"
    return ("+" if card["sign"] == POSITIVE else "-") + str(card["number"])


def standing(phase: str, turn: int, to_move: str | None, abandoned: bool = False,
             lang: str | None = None) -> str:
    """Where a game stands, in one sentence anyone may read (``to_move``: a player's name), in
    ``lang`` (default English).

    >>> standing("play", 7, "bob"), standing("play", 7, "bob", lang="fr")
    ('The game awaits turn 7: bob to move.', 'La partie attend le tour 7 : à bob de jouer.')
    """
    _ = gettext_for(lang)
    if abandoned:
        return _("The game was abandoned at turn {turn} (its seed was revealed): no more moves "
                 "can be played.").format(turn=turn)
    if phase == FINISHED:
        return _("The game is over.")
    if phase == RED_TOKEN:
        return _("The game has ended; {player} places the red token (turn {turn}).").format(
            player=to_move, turn=turn)
    return _("The game awaits turn {turn}: {player} to move.").format(turn=turn, player=to_move)


def join_view(game: str, players, waiting, viewer: str | None, lang: str | None = None,
              header_sha256: str | None = None) -> dict:
    """The view of a game in its join phase (rebis-pbm/2 fair deal): nobody has cards yet.
    ``players`` in seat order, ``waiting`` the players whose join is still awaited; ``lang``
    the language of the move template's placeholder (default English); ``header_sha256`` the
    record's header digest, which the template names so that a signed join binds to this game,
    its seat order and its ruleset alone (docs/shuffle.md)."""
    view: dict = {"view": VIEW_FORMAT, "game": game, "viewer": PUBLIC if viewer is None else viewer,
                  "phase": "join", "players_joined": [p for p in players if p not in waiting],
                  "waiting": list(waiting)}
    if viewer is not None and viewer in waiting:
        filler = gettext_for(lang)(JOIN_PLACEHOLDER)
        bound = "" if header_sha256 is None else f"header_sha256: {header_sha256}\n"
        view["move_template"] = f"game: {game}\nplayer: {viewer}\n{bound}join: {filler}\n"
    return view


JOIN_PLACEHOLDER = N_("WRITE ANY TEXT OF YOUR CHOOSING")  # the join template's words


def is_join_placeholder(text: str) -> bool:
    """Is ``text`` the join template's placeholder, in any language the tool speaks (whatever
    its case and surrounding spaces)? A join that keeps it adds nothing the referee, who wrote
    the template, does not know (docs/shuffle.md)."""
    said = text.strip().casefold()
    return any(words.casefold() == said for words in in_every_language(JOIN_PLACEHOLDER))


def witness_line(game: str, move: int, digest: str) -> str:
    """The witness as the text view writes it (one line; :func:`rebis_pbm.record.trust.read_witness`
    reads it back)."""
    return f"Witness: game {game}, move {move}, chain_sha256 {digest}"


def _recipient_text(view: dict, _: Callable[[str], str]) -> list[str]:
    r = view.get("referee_recipient")
    return [_("Seal your moves to the referee's recipient {recipient} (rebis-pbm seal).").format(
        recipient=r)] if r else []


def _witness_text(view: dict) -> list[str]:
    w = view.get("witness")
    if not w:
        return []
    # The referee's signature of the line, right under it (rebis-pbm/4; docs/views.md).
    signed = view.get("witness_signature", "").strip().splitlines()
    return [witness_line(w["game"], w["move"], w["chain_sha256"]), *signed]


def ruleset_text(ruleset: dict, lang: str | None = None) -> str:
    """The ruleset in force (R1-R4) in one line, from a view's ``ruleset``.

    >>> ruleset_text({"deck": {str(n): 9 for n in range(1, 10)}, "zero": False, "golden_dust": 9,
    ...               "gold": 3, "red": 1, "shelf_limit": 13, "hand_size": 5,
    ...               "multiplier": "additive"})  # doctest: +NORMALIZE_WHITESPACE
    'Ruleset: cards 1-9, 9 of each (81 cards); tokens 9 golden dust, 3 gold, 1 red; shelf limit 13;
    hand 5; multiplier additive (x(1 + tokens)).'
    """
    _, n_ = gettext_for(lang), ngettext_for(lang)
    deck = sorted((int(n), c) for n, c in ruleset["deck"].items() if c)
    numbers = [n for n, _c in deck]
    counts = {c for _n, c in deck}
    total = sum(c for _n, c in deck)
    if len(counts) == 1 and numbers == list(range(numbers[0], numbers[-1] + 1)):
        cards = _("cards {low}-{high}, {count} of each").format(
            low=numbers[0], high=numbers[-1], count=deck[0][1])
    else:
        cards = _("cards {counts}").format(counts=", ".join(f"{c} x {n}" for n, c in deck))
    if ruleset.get("zero"):
        cards += _(" and 9 x 0 (Rebis: Zero)")
        total += 9
    multiplier = ruleset["multiplier"]
    how = _("x(1 + tokens)") if multiplier == "additive" else _("x2 per token")
    # The ruleset's value in the reader's words (docs/glossary.md); the YAML keeps the value.
    multiplier = _(N_("additive")) if multiplier == "additive" else _(N_("doubling")) \
        if multiplier == "doubling" else multiplier
    return _("Ruleset: {cards} ({total}); tokens {golden_dust} golden dust, {gold} gold, {red} "
             "red; shelf limit {limit}; hand {hand}; multiplier {multiplier} ({how}).").format(
                 cards=cards, total=n_("{count} card", "{count} cards", total).format(count=total),
                 golden_dust=ruleset["golden_dust"], gold=ruleset["gold"], red=ruleset["red"],
                 limit=ruleset["shelf_limit"], hand=ruleset["hand_size"], multiplier=multiplier,
                 how=how)


def tokens_text(tokens: list[str], lang: str | None = None) -> str:
    """A shelf's tokens as counts (in ``lang``, default English).

    >>> tokens_text(["golden_dust", "gold", "golden_dust"]), tokens_text([])
    ('2 golden dust, 1 gold', 'no tokens')
    """
    _ = gettext_for(lang)
    return ", ".join(_("{count} {token}").format(count=tokens.count(kind),
                                                 token=_(TOKEN_WORDS[kind]))
                     for kind in (GOLDEN_DUST, GOLD, RED) if kind in tokens) or _("no tokens")


def _played_by(cards: list[dict]) -> str:
    """Who played each card of a shelf: ``+4 (bob) -3 (ana) [?] (cy)``; "" when nobody did
    (only the card dealt face down at setup)."""
    return " ".join(f"{_card_text(c)} ({c['by']})" for c in cards if "by" in c)


def _burden_text(burden: dict | None, _) -> str:
    if not burden:
        return ""
    return _(", burden {total} (- cards {negative} + hand {hand})").format(**burden)


def _shelf_lines(shelf: dict, lang: str | None, _: Callable[[str], str]) -> list[str]:
    """A shelf's lines in the text view, in ``lang`` (whose gettext is ``_``)."""
    tag = _("active") if shelf["active"] else _("closed")
    cards = " ".join(_card_text(c) for c in shelf["cards"])
    tokens = tokens_text(shelf["tokens"], lang)
    lines = [_("  shelf {shelf} ({tag}): {cards} | weight {weight}, value {value}, "
               "{tokens}, scores {score}").format(
                   shelf=shelf["shelf"], tag=tag, cards=cards, weight=shelf["weight"],
                   value=shelf["value"], tokens=tokens, score=shelf["score"])]
    played = _played_by(shelf["cards"])
    if played:  # its own line: the shelf line above keeps its cards as they were
        lines.append(_("    played by: {cards}").format(cards=played))
    return lines


def render_text(view: dict, lang: str | None = None) -> str:
    """The view as text for a person (an e-mail body, a terminal), in ``lang`` (default
    English; :mod:`rebis_pbm.present.i18n`). Pass a view built in the same language
    (``build_view(..., lang=lang)``), whose history and move template are in it too.

    A shelf's lines are kept by language with its entry (``_KeptShelf``): a closed shelf seen
    alike by several viewers, or in several views, is told once per language."""
    _, n_ = gettext_for(lang), ngettext_for(lang)
    who = (_("spectator view") if view["viewer"] == PUBLIC
           else _("view of {player}").format(player=view["viewer"]))
    if view["phase"] == "join":
        lines = [_("Rebis game {game} - {who}").format(game=view["game"], who=who),
                 _("The deal waits for joins: {players}.").format(
                     players=", ".join(view["waiting"]))]
        if view["players_joined"]:
            lines.append(_("Joined: {players}.").format(players=", ".join(view["players_joined"])))
        if "move_template" in view:
            lines += ["", _("Your join (save it as a file, put words of your own in place of "
                            "its join text, and send it; with the game's record at hand, "
                            "`rebis-pbm moves GAME --player NAME` writes one with random "
                            "entropy):"), view["move_template"].rstrip("\n")]
        return "\n".join(lines + [""] + _recipient_text(view, _) + _witness_text(view)) + "\n"
    lines = []
    lines.append(_("Rebis game {game} - {who}").format(game=view["game"], who=who))
    lines.append(standing(view["phase"], view["turn"], view.get("to_move"),
                          view.get("abandoned", False), lang))
    if "deadline" in view:
        lines.append(_("Deadline for {player}'s move: {deadline} (UTC); after it the referee may "
                       "move for them.").format(player=view["to_move"],
                                                deadline=view["deadline"]))
    for warning in view.get("warnings", ()):
        lines.append(warning["text"])
    supply = view["supply"]
    lines.append(_("Deck: {cards}. Supply: {golden_dust} golden dust, {gold} gold, {red} red.")
                 .format(cards=n_("{count} card", "{count} cards", view["deck"]).format(
                     count=view["deck"]), **supply))
    if "ruleset" in view:
        lines.append(ruleset_text(view["ruleset"], lang))
    you = view.get("you")
    if you:
        hand = " ".join(str(c) for c in you["hand"]) or _("(empty)")
        lines.append(_("Your hand: {hand}. Your reserve: {reserve} golden dust.").format(
            hand=hand, reserve=you["reserve"]))
        if "drawn" in you:
            drawn = (_("nothing (the deck is empty)") if you["drawn"] is None
                     else a_card(you["drawn"], lang))
            lines.append(_("This turn you drew {card}.").format(card=drawn))
    lines.append("")
    for player in view["players"]:
        address = f" <{player['address']}>" if "address" in player else ""
        lines.append(_("{name}{address} (seat {seat}): {hand} in hand, {reserve} golden dust in "
                       "reserve, score {score}").format(
                           name=player["name"], address=address, seat=player["seat"],
                           hand=n_("{count} card", "{count} cards", player["hand"]).format(
                               count=player["hand"]),
                           reserve=player["reserve"], score=player["score"])
                     + _burden_text(player.get("burden"), _))
        for shelf in player["shelves"]:
            kept = _kept_shelf(shelf)
            if kept is None:
                lines += _shelf_lines(shelf, lang, _)
                continue
            told = kept.lines.get(lang)  # a shelf seen alike is told alike, in each language
            if told is None:
                told = kept.lines[lang] = _shelf_lines(kept.view, lang, _)
            lines += told
    lines.append("")
    lines.append(_("Recent events:"))
    for entry in view["history"]:
        label = (_("setup") if entry["turn"] == 0 else
                 _("turn {turn} ({player})").format(turn=entry["turn"], player=entry["player"]))
        lines.append(_("  {label}: {text}").format(label=label,
                                                    text=entry.get("account", entry["text"])))
    end = view.get("end")
    if end:
        lines.append("")
        lines.append(end_line(end["reason"], lang))
        lines.append(_("Burden (R12): {burdens}").format(burdens=", ".join(
            _("{player} {total} (- cards {negative} + hand {hand})").format(**b)
            for b in end["burdens"])))
        if "scores" in end:
            lines.append(_("Score (R13): {scores}").format(scores=", ".join(
                f"{s['player']} {s['total']}" for s in end["scores"])))
            lines.append(winners_line(end["winners"], lang) + ".")
    if "move_template" in view:
        lines.append("")
        lines.append(_("Your move (save as a file and send it):"))
        lines.append(view["move_template"].rstrip("\n"))
    lines.append("")
    if view.get("seed_revealed"):
        lines.append(_("Cards: +n / -n face up with their sign; [n] face down (the record "
                       "reveals the seed, so every card shows)."))
    elif view["viewer"] == PUBLIC:
        lines.append(_("Cards: +n / -n face up with their sign; [?] face down."))
    else:
        lines.append(_("Cards: +n / -n face up with their sign; [?] face down; [n] face down, "
                       "placed by you."))
    lines += _recipient_text(view, _) + _witness_text(view)
    return "\n".join(lines) + "\n"


def moment(view: dict[str, Any], lang: str | None = None) -> str:
    """When a view was made, in words in ``lang`` (English by default): ``turn 7`` during the
    game, ``after turn 37 (game over)`` once it is over (a view's ``turn`` is the move awaited
    next, one past the last). The one wording of it: the picture's title and the game page's."""
    _ = gettext_for(lang)
    if view.get("phase") == "finished":
        return _("after turn {turn} (game over)").format(turn=view["turn"] - 1)
    return _("turn {turn}").format(turn=view["turn"])


def end_words(reason: str, lang: str | None = None) -> str:
    """Why a game ended (a view's ``end.reason``, R11), in words in ``lang``: ``the deck is
    empty``, ``no golden dust and no gold token is left in the supply``; a reason this version
    has no words for, as it is. The one wording of it: the text view, its events, the picture."""
    words = _END_WORDS.get(reason)
    return reason if words is None else gettext_for(lang)(words)


def end_line(reason: str, lang: str | None = None) -> str:
    """``End of the game: the deck is empty.``, in ``lang``: the first line of a finished game's
    end, in the text view and the picture alike."""
    _ = gettext_for(lang)
    return _("End of the game: {why}.").format(why=end_words(reason, lang))


def winners_line(winners: list[str], lang: str | None = None) -> str:
    """``Winner: bob`` or ``Shared win: ann and bo`` (R13), in ``lang`` (default English): the
    one wording of a finished game's winners, in the text view, the picture, ``score`` and
    ``verify``; no full stop (the callers' sentences differ). ``winners``: names, not empty.

    >>> winners_line(["bob"]), winners_line(["ann", "bo", "cy"], "fr")
    ('Winner: bob', 'Victoire partagée : ann et bo et cy')
    """
    _ = gettext_for(lang)
    if len(winners) == 1:
        return _("Winner: {players}").format(players=winners[0])
    return _("Shared win: {players}").format(players=_(" and ").join(winners))
