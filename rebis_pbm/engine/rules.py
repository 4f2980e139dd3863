"""Legality, applying a move, legal-move listing and replay (R6-R12).

``apply_move(state, move) -> (state, events)`` is the one way a game moves on. It never mutates its
argument. Every rejection is an :class:`IllegalMove` with a ``code`` and one sentence addressed to
the mover; the sentence never mentions a card the mover may not know.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Final, TypeAlias, cast, overload

from rebis_pbm.engine import events as ev
from rebis_pbm.engine.cards import (
    GOLD,
    GOLDEN_DUST,
    NEGATIVE,
    POSITIVE,
    RED,
    SIGNS,
    Shelf,
    ShelfCard,
)
from rebis_pbm.engine.enums import DrawCause, EndReason, Reason, Sign, TokenKind
from rebis_pbm.engine.moves import Move, Play, ShelfRef
from rebis_pbm.engine.phrases import N_, Phrase
from rebis_pbm.engine.ruleset import Ruleset
from rebis_pbm.engine.scoring import red_token_holder
from rebis_pbm.engine.state import FINISHED, PLAY, RED_TOKEN, State, Supply, setup


class IllegalMove(ValueError):
    """A move the rules do not allow now.

    Attributes:
        code: why, a :class:`Reason` (a ``str``: ``err.code == "stale_turn"`` holds); the
            constructor also takes the reason's word.
        message: one sentence for the mover, citing the ruling where one applies (English).
        phrase: the same sentence as a :class:`~rebis_pbm.engine.phrases.Phrase` (its English
            template and parameters), which :func:`rebis_pbm.present.i18n.translate` gives in the
            mover's language; None when the message was given as plain text.
        exit_code: 1, how a command refusing the move ends (docs/cli.md), as every error of
            :mod:`rebis_pbm.errors` carries its own.

    ``IllegalMove(code, message)`` (``message`` a ``str`` or a ``Phrase``) raises ValueError
    when ``code`` is no :class:`Reason` (a programming error).
    """

    exit_code: Final[int] = 1

    def __init__(self, code: Reason | str, message: str | Phrase) -> None:
        text = str(message)
        super().__init__(text)
        self.code: Reason = code if type(code) is Reason else Reason(code)
        self.message: str = text
        self.phrase: Phrase | None = message if isinstance(message, Phrase) else None


def _illegal(code: Reason, template: str, **params: object) -> IllegalMove:
    """An :class:`IllegalMove` whose sentence is ``template`` (marked with ``N_``) filled with
    ``params``: translatable by the shells (:mod:`rebis_pbm.engine.phrases`)."""
    return IllegalMove(code, Phrase(template, params))


# Every reason (Reason members, equal to their words), in the order Reason lists them.
REASONS: Final[tuple[Reason, ...]] = tuple(Reason)

# One legal turn's action, as LegalMoves keeps it: (cards, owner's name, sign, gold ShelfRef).
_Action: TypeAlias = tuple[tuple[int, ...], str, Sign, ShelfRef | None]


def _shelf_name(state: State, seat: int, mover: int, number: int | None = None) -> Phrase:
    number = len(state.shelves[seat]) if number is None else number
    if seat == mover:
        return Phrase(N_("your active shelf (shelf {number})"), {"number": number})
    return Phrase(N_("{owner}'s active shelf (shelf {number})"),
                  {"owner": state.players[seat], "number": number})


def _gold_due(supply: Supply) -> bool:
    """R8.1: a closer takes gold (and must place it) only when no golden dust is left."""
    return supply.golden_dust == 0 and supply.gold > 0


def _players(state: State, name: str) -> Phrase:
    """"players: ana, bea" for a message about ``name``, which is no player's, with "did you
    mean 'bea'?" when ``name`` differs from a player's only in case (``new`` refuses two names
    that differ only so, so there is at most one)."""
    close = [seat for seat in state.players if seat.lower() == name.lower()]
    names = ", ".join(state.players)
    if close:
        return Phrase(N_("players: {names}; did you mean {close!r}?"),
                      {"names": names, "close": close[0]})
    return Phrase(N_("players: {names}"), {"names": names})


def _check_shelf_ref(state: State, ref: ShelfRef, what: str,
                     new_shelf_of: int | None = None) -> None:
    if ref.player not in state.players:
        raise _illegal(Reason.UNKNOWN_PLAYER, N_("{what} names player {player!r}, who is not in "
                       "this game ({players})"), what=what, player=ref.player,
                       players=_players(state, ref.player))
    seat = state.players.index(ref.player)
    count = len(state.shelves[seat]) + (1 if seat == new_shelf_of else 0)
    if not 1 <= ref.shelf <= count:
        if count == 1:
            raise _illegal(Reason.NO_SUCH_SHELF, N_("{what} names {player}'s shelf {shelf}, but "
                           "{player} has only shelf 1"), what=what, player=ref.player,
                           shelf=ref.shelf)
        raise _illegal(Reason.NO_SUCH_SHELF, N_("{what} names {player}'s shelf {shelf}, but "
                       "{player} has shelves 1 to {count}"), what=what, player=ref.player,
                       shelf=ref.shelf, count=count)


def check_move(state: State, move: Move, *, hand_first: bool = False) -> None:
    """Raise :class:`IllegalMove` unless ``move`` is legal in ``state``; return None otherwise.

    Checks, in order: game over; the mover exists; the turn number (stale or not yet started); whose
    turn it is; then the phase's rules: R12 (red token) or R6 step 2 and R7/R8 (a play), whether
    the hand holds the cards coming last. Every check before that last one reads public information
    only, so a rejected move says nothing about the mover's hand beyond "it does not hold these
    cards", which the move's acceptance would also have shown (docs/views.md): a move sent in
    another player's name cannot probe their hand without being played.

    With ``hand_first``, for a move known to come from its player (their own tools, a move
    signed by their key), a card the hand does not hold is refused as such ("you have no 5")
    before any rule about where it would go (R7, R8): the answer a player needs first.

    Raises:
        IllegalMove: the move is not legal now; its ``code`` (a :class:`Reason`) says why.
    """
    if state.phase == FINISHED:
        raise _illegal(Reason.GAME_OVER, N_("the game is over; no more moves can be played"))
    if move.player not in state.players:
        raise _illegal(Reason.UNKNOWN_PLAYER, N_("there is no player {player!r} in this game "
                       "({players})"), player=move.player, players=_players(state, move.player))
    assert state.to_move is not None  # every phase but FINISHED awaits someone's move
    to_move = state.players[state.to_move]
    if move.turn < state.turn:
        raise _illegal(Reason.STALE_TURN, N_("turn {turn} has already been played; the current "
                       "turn is {current}, {to_move} to move"), turn=move.turn,
                       current=state.turn, to_move=to_move)
    if move.turn > state.turn:
        raise _illegal(Reason.FUTURE_TURN, N_("turn {turn} has not begun; the current turn is "
                       "{current}, {to_move} to move"), turn=move.turn, current=state.turn,
                       to_move=to_move)
    mover = state.players.index(move.player)
    if mover != state.to_move:
        raise _illegal(Reason.NOT_YOUR_TURN, N_("turn {turn} is {to_move}'s, not {player}'s"),
                       turn=state.turn, to_move=to_move, player=move.player)

    if state.phase == RED_TOKEN:
        if move.play is not None or move.golden_dust or move.gold_token is not None \
                or move.red_token is None:
            raise _illegal(Reason.RED_TOKEN_EXPECTED, N_("the game has ended and you hold the "
                           "red token: your last move places it, with only red_token: {{player, "
                           "shelf}} (R12)"))
        _check_shelf_ref(state, move.red_token, "red_token")
        return

    if move.red_token is not None:
        raise _illegal(Reason.RED_TOKEN_TOO_EARLY, N_("the red token is placed only after the "
                       "game has ended, by the player with the highest burden (R12); remove "
                       "red_token"))
    play = move.play
    if play is None:
        raise _illegal(Reason.PLAY_MISSING, N_("a turn's move must play a card: add play: "
                       "{{cards, shelf, sign}} (R6)"))
    if move.golden_dust < 0 or move.golden_dust > state.reserves[mover]:
        raise _illegal(Reason.GOLDEN_DUST_RESERVE, N_("you have {reserve} golden dust in your "
                       "reserve, so golden_dust can be at most {reserve}, not {asked} (R6)"),
                       reserve=state.reserves[mover], asked=move.golden_dust)
    if play.sign not in SIGNS:
        raise _illegal(Reason.BAD_SIGN, N_("sign must be 'positive' or 'negative', not "
                       "{sign!r}"), sign=play.sign)
    if play.owner not in state.players:
        raise _illegal(Reason.UNKNOWN_PLAYER, N_("{what} names player {player!r}, who is not in "
                       "this game ({players})"), what="play.shelf", player=play.owner,
                       players=_players(state, play.owner))
    target = state.players.index(play.owner)
    cards = play.cards
    if len(cards) not in (1, 2):
        raise _illegal(Reason.CARD_COUNT, N_("play one card, or two cards with the same number "
                       "on your own shelf (R7, R8)"))
    if len(cards) == 2:
        if target != mover:
            raise _illegal(Reason.PAIR_ON_OTHER_SHELF, N_("only one card can be played on "
                           "another player's shelf (R8); a pair goes on your own shelf (R7)"))
        if cards[0] != cards[1]:
            raise _illegal(Reason.PAIR_NOT_EQUAL, N_("two cards played together must have the "
                           "same number (R7); {first} and {second} differ"), first=cards[0],
                           second=cards[1])
    if hand_first:
        _check_hand(state, mover, cards)
    _check_action(state, move, play, mover, target)
    # Last, so that no other reason can tell whether the hand holds the cards: a move made in
    # someone else's name learns only what its acceptance would show.
    _check_hand(state, mover, cards)


def _check_hand(state: State, mover: int, cards: tuple[int, ...]) -> None:
    """Refuse cards the mover's hand does not hold (a number the deck lacks is said so: public)."""
    if state.hands[mover].count(cards[0]) < len(cards):
        if cards[0] not in state.ruleset.cards:  # public: the ruleset says which numbers exist
            raise _illegal(Reason.NO_SUCH_CARD, N_("there is no card {card} in this game: "
                           "{numbers} (R1, R2)"), card=cards[0], numbers=_numbers(state.ruleset))
        if len(cards) == 1:
            raise _illegal(Reason.CARD_NOT_IN_HAND, N_("you have no {card} in your hand"),
                           card=cards[0])
        # The same words for none and for one: the answer tells only that the pair is not there.
        raise _illegal(Reason.CARD_NOT_IN_HAND, N_("you have no {card} or only one {card} in "
                       "your hand, and a pair needs two (R7)"), card=cards[0])


def _numbers(ruleset: Ruleset) -> Phrase:
    """Which card numbers a ruleset's deck holds, as a player reads it: "its cards are numbered
    1 to 9" (or "1, 2, 5" when they are not consecutive), or "its deck is empty"."""
    numbers = sorted(set(ruleset.cards))
    if not numbers:
        return Phrase(N_("its deck is empty"))
    if numbers == list(range(numbers[0], numbers[-1] + 1)):
        return Phrase(N_("its cards are numbered {low} to {high}"),
                      {"low": numbers[0], "high": numbers[-1]})
    return Phrase(N_("its cards are numbered {numbers}"),
                  {"numbers": ", ".join(map(str, numbers))})


def _check_action(state: State, move: Move, play: Play, mover: int, target: int) -> None:
    """The checks of R7/R8 that depend on public information only (shelves, supply, the move);
    ``play`` is ``move.play``."""
    cards = play.cards
    shelf = state.shelves[target][-1]  # the active shelf
    limit = state.ruleset.shelf_limit
    if target == mover:
        if play.sign == NEGATIVE:
            raise _illegal(Reason.NEGATIVE_ON_OWN_SHELF, N_("cards on your own shelf are played "
                           "with a + sign; write sign: positive (R7)"))
        added = sum(cards)
        if shelf.weight + added > limit:
            shown = "+".join(str(c) for c in cards)
            raise _illegal(Reason.OVER_SHELF_LIMIT, N_("{shelf} weighs {weight}; adding {shown} "
                           "would make {total}, over the shelf limit of {limit}, and you cannot "
                           "close your own shelf (R7)"), shelf=_shelf_name(state, target, mover),
                           weight=shelf.weight, shown=shown, total=shelf.weight + added,
                           limit=limit)
        if move.gold_token is not None:
            raise _illegal(Reason.GOLD_TOKEN_NOT_ALLOWED, N_("gold_token goes only with a play "
                           "that closes another player's shelf when the supply gives gold "
                           "(R8.1); remove it"))
        return

    card = cards[0]
    if play.sign == NEGATIVE and card == 0:
        raise _illegal(Reason.ZERO_NEGATIVE, N_("a card numbered 0 has no negative value; play "
                       "it with sign: positive (R8.3)"))
    if shelf.weight + card > limit:  # R8.1: the card closes the shelf
        if _gold_due(state.supply):
            if move.gold_token is None:
                raise _illegal(Reason.GOLD_TOKEN_MISSING, N_("this {card} closes {shelf} and "
                               "the supply has no golden dust left, so you take a gold token "
                               "and place it at once: add gold_token: {{player, shelf}} naming "
                               "any shelf in play (R8.1)"), card=card,
                               shelf=_shelf_name(state, target, mover))
            _check_shelf_ref(state, move.gold_token, "gold_token", new_shelf_of=target)
        elif move.gold_token is not None:
            took = (Phrase(N_("a golden dust token into your reserve"))
                    if state.supply.golden_dust
                    else Phrase(N_("no token, since the supply has none left")))
            raise _illegal(Reason.GOLD_TOKEN_NOT_ALLOWED, N_("this {card} closes {shelf} and you "
                           "take {took}, not gold; remove gold_token (R8.1)"), card=card,
                           shelf=_shelf_name(state, target, mover), took=took)
        return
    if move.gold_token is not None:
        raise _illegal(Reason.GOLD_TOKEN_NOT_ALLOWED, N_("this {card} does not close {shelf} "
                       "(weight {weight}, limit {limit}), so there is no gold token to place; "
                       "remove gold_token (R8.1)"), card=card,
                       shelf=_shelf_name(state, target, mover), weight=shelf.weight, limit=limit)
    if play.sign == NEGATIVE and shelf.value - card < 0:
        raise _illegal(Reason.VALUE_BELOW_ZERO, N_("{shelf} is worth {value}; a -{card} would "
                       "make it {total}, and a shelf's value can never go below 0 (R8.2)"),
                       shelf=_shelf_name(state, target, mover), value=shelf.value, card=card,
                       total=shelf.value - card)


def apply_move(state: State, move: Move, *,
               hand_first: bool = False) -> tuple[State, tuple[ev.Event, ...]]:
    """Check ``move`` and play it: returns ``(new_state, events)``. ``hand_first``: as for
    :func:`check_move`.

    The events run from the move's own steps to the end-of-turn check (R11) and, when the game goes
    on, the next turn's beginning and draw (R6 step 1).

    Raises:
        IllegalMove: the move is not legal now (nothing changes).
    """
    check_move(state, move, hand_first=hand_first)
    return _play(state, move)


def _place_token(shelves: list[tuple[Shelf, ...]], seats: tuple[str, ...], name: str,
                 kind: TokenKind, ref: ShelfRef, out: list[ev.Event]) -> None:
    """``name`` places a token of ``kind`` on the shelf ``ref`` (R8.1 gold, R12 red)."""
    seat = seats.index(ref.player)
    row = list(shelves[seat])
    row[ref.shelf - 1] = row[ref.shelf - 1].with_tokens(kind)
    shelves[seat] = tuple(row)
    out.append(ev.TokenPlaced(name, kind, ref.player, ref.shelf))


def _draw(order: tuple[int, ...], pos: int, hands: list[tuple[int, ...]], seat: int,
          seats: tuple[str, ...], cause: DrawCause, out: list[ev.Event]) -> int:
    """``seat`` draws the card at ``order[pos]`` (R6, R8.1, R8.2); returns the new deck
    position. An empty deck draws nothing (R9)."""
    card: int | None
    if pos < len(order):
        card = order[pos]
        pos += 1
        hands[seat] = tuple(sorted(hands[seat] + (card,)))
    else:
        card = None
    out.append(ev.Drew(seats[seat], card, cause))
    return pos


def _play(state: State, move: Move) -> tuple[State, tuple[ev.Event, ...]]:
    """Apply a move already checked by :func:`check_move`."""
    seats = state.players
    mover = state.to_move
    assert mover is not None  # check_move refused the move of a finished game
    name = seats[mover]
    order = state.order
    pos = state.deck_pos
    hands = list(state.hands)
    shelves = list(state.shelves)
    reserves = list(state.reserves)
    gd, gold, red = state.supply.golden_dust, state.supply.gold, state.supply.red
    out: list[ev.Event] = []

    if state.phase == RED_TOKEN:
        assert move.red_token is not None  # check_move: the red-token move names its shelf
        _place_token(shelves, seats, name, RED, move.red_token, out)
        out.append(ev.GameFinished())
        return State(state.ruleset, seats, order, pos, state.hands, tuple(shelves),
                     state.reserves, Supply(gd, gold, red - 1), state.turn + 1, FINISHED, None,
                     None, state.last_mover, state.end_reason), tuple(out)

    if move.golden_dust:  # R6 step 2
        reserves[mover] -= move.golden_dust
        row = shelves[mover]
        shelves[mover] = row[:-1] + (row[-1].with_tokens(*([GOLDEN_DUST] * move.golden_dust)),)
        out.append(ev.DustPlaced(name, move.golden_dust, len(row)))

    play = move.play
    assert play is not None  # check_move: a turn's move plays
    target = seats.index(play.owner)
    hand = list(hands[mover])
    for card in play.cards:
        hand.remove(card)
    hands[mover] = tuple(hand)
    card = play.cards[0]
    row = shelves[target]
    if target == mover:  # R7
        shelf = row[-1]
        for card in play.cards:
            shelf = shelf.with_card(ShelfCard(card, 1, mover))
        shelves[target] = row[:-1] + (shelf,)
        out.append(ev.Played(name, play.owner, len(row), play.cards, POSITIVE))
    elif row[-1].weight + card > state.ruleset.shelf_limit:  # R8.1: it closes the shelf
        shelves[target] = row + (Shelf((ShelfCard(card, 0, mover),)),)
        out.append(ev.Closed(name, play.owner, len(row), card, len(row) + 1))
        if gd:
            gd -= 1
            reserves[mover] += 1
            out.append(ev.TokenTaken(name, GOLDEN_DUST))
        elif gold:
            gold -= 1
            out.append(ev.TokenTaken(name, GOLD))
            assert move.gold_token is not None  # check_move: gold due, so its shelf is named
            _place_token(shelves, seats, name, GOLD, move.gold_token, out)
        else:
            out.append(ev.TokenTaken(name, None))
        pos = _draw(order, pos, hands, target, seats, ev.CLOSED_DRAW, out)
    elif play.sign == POSITIVE:  # R8.2
        shelves[target] = row[:-1] + (row[-1].with_card(ShelfCard(card, 1, mover)),)
        out.append(ev.Played(name, play.owner, len(row), play.cards, POSITIVE))
    else:  # R8.2, a - card: the mover draws
        shelves[target] = row[:-1] + (row[-1].with_card(ShelfCard(card, -1, mover)),)
        out.append(ev.Played(name, play.owner, len(row), play.cards, NEGATIVE))
        pos = _draw(order, pos, hands, mover, seats, ev.NEGATIVE_DRAW, out)

    # R11: end-of-turn check.
    reason: EndReason | None = None
    if pos >= len(order):
        reason = ev.DECK_EMPTY
    elif gd == 0 and gold == 0:
        reason = ev.TOKENS_EXHAUSTED
    # Most turns take no token: keep the supply object rather than build an equal one.
    supply = state.supply if (gd, gold) == (state.supply.golden_dust, state.supply.gold) \
        else Supply(gd, gold, red)
    turn = state.turn + 1
    if reason is None:
        nxt = (mover + 1) % len(seats)
        out.append(ev.TurnBegan(turn, seats[nxt]))
        drawn = order[pos]  # the deck is not empty, or the game would have ended (R11)
        pos = _draw(order, pos, hands, nxt, seats, ev.TURN_DRAW, out)
        return State(state.ruleset, seats, order, pos, tuple(hands), tuple(shelves),
                     tuple(reserves), supply, turn, PLAY, nxt, drawn, mover, None), tuple(out)
    out.append(ev.GameEnded(reason))
    ended = State(state.ruleset, seats, order, pos, tuple(hands), tuple(shelves), tuple(reserves),
                  supply, turn, FINISHED, None, None, mover, reason)
    if red <= 0:
        out.append(ev.GameFinished())
        return ended, tuple(out)
    holder = red_token_holder(ended)  # R12
    out.append(ev.RedTokenAwarded(seats[holder]))
    return State(state.ruleset, seats, order, pos, tuple(hands), tuple(shelves), tuple(reserves),
                 supply, turn, RED_TOKEN, holder, None, mover, reason), tuple(out)


def shelves_in_play(state: State, new_shelf_of: int | None = None) -> list[ShelfRef]:
    """Every shelf in play, closed or active, seat order then shelf number; ``new_shelf_of`` adds
    the shelf a closing play is about to start for that seat (R8.1 gold may go there)."""
    refs: list[ShelfRef] = []
    for seat, player in enumerate(state.players):
        count = len(state.shelves[seat]) + (1 if seat == new_shelf_of else 0)
        refs.extend(ShelfRef(player, n) for n in range(1, count + 1))
    return refs


_ONE = tuple((c,) for c in range(100))  # a single card (c,), shared: card numbers are 0-99 (R1)


class LegalMoves(Sequence[Move]):
    """The legal moves of one position: an immutable sequence of :class:`Move`, built on demand.

    A position often has hundreds of legal moves (every card, target, sign and golden dust
    count); a caller that picks one (``rng.choice``) or looks at the first should not pay for
    building them all. Indexing and iteration build each ``Move`` when asked (a slice gives a
    list). It equals a list or tuple of the same moves in the same order
    (``legal_moves(s) == []`` works), and is unhashable like a list.

    Raises:
        IndexError: an index out of range, as a list does.
    """

    __slots__ = ("_actions", "_dust", "_player", "_red", "_turn")

    def __init__(self, turn: int, player: str, dust: int,
                 actions: list[_Action] | list[ShelfRef], red: bool) -> None:
        self._turn = turn
        self._player = player
        self._dust = dust          # golden dust in the mover's reserve: 0..dust may be placed
        self._actions = actions    # _Action tuples or, when ``red``, the red token's ShelfRefs
        self._red = red

    def __len__(self) -> int:
        return len(self._actions) * (self._dust + 1)

    @overload
    def __getitem__(self, index: int) -> Move: ...

    @overload
    def __getitem__(self, index: slice) -> list[Move]: ...

    def __getitem__(self, index: int | slice) -> Move | list[Move]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        actions = self._actions
        size = len(actions) * (self._dust + 1)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("legal move index out of range")
        if self._red:
            return Move(self._turn, self._player, red_token=cast(ShelfRef, actions[index]))
        dust, k = divmod(index, len(actions))
        cards, owner, sign, gold = cast(_Action, actions[k])
        return Move(self._turn, self._player, dust, Play(cards, owner, sign), gold)

    def __iter__(self) -> Iterator[Move]:
        return (self[i] for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LegalMoves | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LegalMoves({list(self)!r})"


def legal_moves(state: State) -> LegalMoves:
    """Every legal move for the player to move, each complete (``apply_move`` accepts it as is).

    Returns a :class:`LegalMoves` sequence (empty when the game is finished). It depends only on
    what the mover knows (their hand, the public shelves, supply and reserves), so it gives the
    same moves on :func:`~rebis_pbm.engine.state.information_set` of the mover.

    Order: red-token placements by shelf; otherwise by golden dust placed (0 upwards), then own
    shelf (single cards, then pairs, by number), then each other player in seat order from the
    mover (card numbers ascending, positive before negative, gold placements by shelf). A closing
    play is listed once, with sign positive (its sign does not matter, R8.1).
    """
    mover = state.to_move
    if state.phase == FINISHED:
        return LegalMoves(state.turn, "", 0, [], False)
    assert mover is not None  # every phase but FINISHED awaits someone's move
    name = state.players[mover]
    if state.phase == RED_TOKEN:  # R12
        return LegalMoves(state.turn, name, 0, shelves_in_play(state), True)
    hand = state.hands[mover]
    numbers = sorted(set(hand))
    limit = state.ruleset.shelf_limit
    room = limit - state.shelves[mover][-1].weight
    actions: list[_Action] = [(_ONE[c], name, POSITIVE, None) for c in numbers if c <= room]  # R7
    actions += [((c, c), name, POSITIVE, None) for c in numbers
                if 2 * c <= room and hand.count(c) >= 2]
    gold_due = _gold_due(state.supply)
    n = len(state.players)
    for step in range(1, n):  # R8
        target = (mover + step) % n
        owner = state.players[target]
        shelf = state.shelves[target][-1]
        room = limit - shelf.weight
        value = shelf.value
        refs: list[ShelfRef] | None = None
        for c in numbers:
            cards = _ONE[c]
            if c > room:  # R8.1: the card closes the shelf
                if gold_due:
                    if refs is None:
                        refs = shelves_in_play(state, target)
                    actions += [(cards, owner, POSITIVE, ref) for ref in refs]
                else:
                    actions.append((cards, owner, POSITIVE, None))
                continue
            actions.append((cards, owner, POSITIVE, None))
            if c and value >= c:  # R8.2 (value stays >= 0), R8.3 (no -0)
                actions.append((cards, owner, NEGATIVE, None))
    return LegalMoves(state.turn, name, state.reserves[mover], actions, False)


def replay(ruleset: Ruleset, seats: Iterable[str], seed: str, moves: Iterable[Move]) -> State:
    """The state after dealing from ``seed`` and playing ``moves`` in order.

    Raises:
        IllegalMove: a move is illegal at its point (its ``turn`` says which).
        ValueError: the setup is impossible (see :func:`setup`).
    """
    state, _ = setup(ruleset, tuple(seats), seed)
    for move in moves:
        state, _ = apply_move(state, move)
    return state
