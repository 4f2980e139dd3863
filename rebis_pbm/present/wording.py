"""The words of the game as a reader meets them: cards, counts, events, where a game stands.

One wording of each, shared by the text view (:mod:`.text`), the picture (:mod:`.svg`), the game
page (:mod:`.site`), the views' history and the mails; each in a reader's language
(:mod:`.i18n`; English by default). The words ``verify`` writes too (counts, the winners, the
join placeholder, the witness line) are the record's (:mod:`rebis_pbm.record.wording`): taken
from there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rebis_pbm.engine import events as ev
from rebis_pbm.engine.cards import GOLD, GOLDEN_DUST, NEGATIVE, RED
from rebis_pbm.engine.state import FINISHED, RED_TOKEN
from rebis_pbm.present.i18n import ENGLISH, N_, gettext_for, ngettext_for, separator
from rebis_pbm.record import wording as record_wording
from rebis_pbm.record.wording import (
    JOIN_PLACEHOLDER,
    Gettext,
    counted,
    is_join_placeholder,
    witness_line,
)

if TYPE_CHECKING:
    from rebis_pbm.present.shapes import View

NGettext = Callable[[str, str, int], str]  # a language's ngettext: singular, plural, count

# why a game ended (R11), for every text that says it: end_words
_END_WORDS: dict[str, str] = {
    ev.DECK_EMPTY: N_("the deck is empty"),
    ev.TOKENS_EXHAUSTED: N_("no golden dust and no gold token is left in the supply")}
# a token kind's name, the one wording of it: the text view's counts (tokens_text), the picture
TOKEN_WORDS: dict[str, str] = {GOLDEN_DUST: N_("golden dust"), GOLD: N_("gold"), RED: N_("red")}

# The rebis-pbm/5 join templates' words where the player's own command writes the value (a
# commitment, then the join text it hashed): the referee's template carries no entropy.
PLAY_WRITES_IT = N_("WRITTEN BY rebis-pbm play ON YOUR VIEW")


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



def _shelf_of(owner: str, shelf: int, viewer: str | None, _: Gettext) -> str:
    """"your shelf 2" or "bob's shelf 2", in the language of ``_`` (a gettext)."""
    if owner == viewer:
        return _("your shelf {shelf}").format(shelf=shelf)
    return _("{owner}'s shelf {shelf}").format(owner=owner, shelf=shelf)


def describe(event: ev.Event, viewer: str | None, lang: str | None = None,
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
    player: str | None = getattr(event, "player", None)
    you = player is not None and player == viewer
    if stand_in and you:
        told = _stand_in_event(event, viewer, _, ngettext_for(lang))
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
        n_ = ngettext_for(lang)  # "golden dust" is uncountable in English; a token is not
        return (n_("you placed {count} golden dust from the reserve on your shelf {shelf}",
                   "you placed {count} golden dust from the reserve on your shelf {shelf}",
                   event.count) if you
                else n_("{player} placed {count} golden dust from the reserve on {player}'s "
                        "shelf {shelf}", "{player} placed {count} golden dust from the reserve "
                        "on {player}'s shelf {shelf}", event.count)).format(
                            player=player, count=event.count, shelf=event.shelf)
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


def _played(event: ev.Played, _: Gettext) -> tuple[str, str]:
    """The cards of a play ("7", "4 and 4") and its sign ("+", "-"), as the accounts say them."""
    cards = (str(event.cards[0]) if len(event.cards) == 1 else
             _("{first} and {second}").format(first=event.cards[0], second=event.cards[1]))
    return cards, "-" if event.sign == NEGATIVE else "+"


def _stand_in_event(event: ev.Event, viewer: str | None, _: Gettext,
                    n_: NGettext) -> str | None:
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
        return n_("the referee placed {count} golden dust from the reserve on your shelf "
                  "{shelf}", "the referee placed {count} golden dust from the reserve on your "
                  "shelf {shelf}", event.count).format(count=event.count, shelf=event.shelf)
    if isinstance(event, ev.TokenPlaced):
        shelf = _shelf_of(event.owner, event.shelf, viewer, _)
        text = {RED: _("the referee placed the red token on {shelf}"),
                GOLD: _("the referee placed the gold token on {shelf}")}.get(
                    event.kind, _("the referee placed the golden dust token on {shelf}"))
        return text.format(shelf=shelf)
    return None


# The reasons the record gives for a move the referee made (deadlines.MISSED, ON_REQUEST,
# REPLACED, RESIGNED), as a player reads them.
_STAND_IN_REASONS = {"missed deadline": N_("missed deadline"),
                     "on the player's request": N_("on the player's request"),
                     "replaced by the bot after missed deadlines":
                         N_("replaced by the bot after missed deadlines"),
                     "resigned by mail": N_("resigned by mail")}
# ... and as the player the move was made for reads them, in the second person (issue 30)
_YOUR_STAND_IN_REASONS = {"on the player's request": N_("at your request")}


def account(events: Sequence[ev.Event], viewer: str | None = None, lang: str | None = None,
            stand_in: str | None = None) -> str:
    """A paragraph telling ``events`` to ``viewer`` (None: anyone, no hidden card named), in
    ``lang`` (default English). ``stand_in``: the events are of a move the referee made for
    its player, for this reason (the record's ``reason``, e.g. ``missed deadline``): the
    paragraph says so first ("the referee moved for you (missed deadline); the referee played
    ...")."""
    told = ((describe(e, viewer, lang, stand_in=True) for e in events) if stand_in is not None
            else (describe(e, viewer, lang) for e in events))
    sentences = [s for s in told if s]
    text = separator(lang).join(sentences) + "." if sentences else ""
    if stand_in is None:
        return text
    _ = gettext_for(lang)
    mover = next((e.player for e in events if isinstance(
        e, (ev.Played, ev.Closed, ev.DustPlaced, ev.TokenPlaced))), None)
    you = mover is not None and mover == viewer
    reasons = {**_STAND_IN_REASONS, **_YOUR_STAND_IN_REASONS} if you else _STAND_IN_REASONS
    why = _(reasons[stand_in]) if stand_in in reasons else stand_in
    lead = (_("the referee moved for you ({reason})") if you
            else _("the referee moved for {player} ({reason})")).format(player=mover, reason=why)
    return f"{lead}{separator(lang)}{text}" if text else lead + "."


def standing(phase: str, turn: int, to_move: str | None, abandoned: bool = False,
             lang: str | None = None, viewer: str | None = None) -> str:
    """Where a game stands, in one sentence (``to_move``: a player's name), in ``lang``
    (default English); to ``viewer`` (a player's name, None for anyone) when they are
    ``to_move``, in the second person ("you place the red token", "your move").

    >>> standing("play", 7, "bob"), standing("play", 7, "bob", lang="fr")
    ('The game awaits turn 7: bob to move.', 'La partie attend le tour 7\\xa0: à bob de jouer.')
    """
    _ = gettext_for(lang)
    if abandoned:
        return _("The game was abandoned at turn {turn} (its seed was revealed): no more moves "
                 "can be played.").format(turn=turn)
    if phase == FINISHED:
        return _("The game is over.")
    you = to_move is not None and to_move == viewer
    if phase == RED_TOKEN:
        # R12: the red token's placement is the game's last move, still to be played
        return (_("The turns are over; you place the red token, the game's last move "
                  "(turn {turn}).") if you else
                _("The turns are over; {player} places the red token, the game's last move "
                  "(turn {turn}).")).format(player=to_move, turn=turn)
    return (_("The game awaits turn {turn}: you to move.") if you else
            _("The game awaits turn {turn}: {player} to move.")).format(turn=turn,
                                                                         player=to_move)




def moment(view: View, lang: str | None = None) -> str:
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


def winners_line(winners: Sequence[str], lang: str | None = None) -> str:
    """``Winner: bob`` or ``Shared win: ann and bo`` (R13), in ``lang`` (default English): the
    one wording of a finished game's winners, in the text view, the picture, ``score`` and
    ``verify``; no full stop (the callers' sentences differ). ``winners``: names, not empty.

    >>> winners_line(["bob"]), winners_line(["ann", "bo", "cy"], "fr")
    ('Winner: bob', 'Victoire partagée\\xa0: ann et bo et cy')
    """
    return record_wording.winners_line(winners, gettext_for(lang))


__all__ = ["JOIN_PLACEHOLDER", "PLAY_WRITES_IT", "TOKEN_WORDS", "a_card", "account", "counted",
           "describe", "end_line", "end_words", "is_join_placeholder", "moment", "standing",
           "winners_line",
           "witness_line"]
