"""Information sets for the secrecy tests: random game prefixes whose cards are followed deck
position by deck position, and second games that differ only in cards a given reader has not seen.

A card is identified by its position in the dealt deck (``State.order``). After a prefix of moves,
a player has *seen* the positions dealt to their hand (R5), the positions they drew (R6, R8.1,
R8.2) and, among them, the card they laid face down when closing a shelf (R8.1). Everybody has seen
the positions played face up (R7, R8.2). Every other position is *unseen* by that player: the rest
of the deck, the other hands, the face-down cards dealt at setup (their owner included, R5) and the
face-down cards the others closed with.

:func:`alternative` builds a second deal and move list that agree with everything one reader has
seen: it permutes the values of the unseen positions that no move of the prefix plays, and changes
each unseen closing card for another unseen card that closes the shelf as well (its sign does not
matter, R8.1). The same public moves are then legal in both games, with the same public outcome.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from rebis_pbm.engine import Move, Play, Ruleset, ShelfRef, apply_move, legal_moves
from rebis_pbm.engine import events as ev
from rebis_pbm.engine.state import deal
from rebis_pbm.record import Replay


@dataclass(frozen=True)
class Closing:
    """A closing play (R8.1) of a prefix: at ``step``, ``closer`` laid the card at deck position
    ``position`` face down on a shelf that weighed ``weight``."""

    step: int
    position: int
    closer: int
    weight: int


@dataclass
class Prefix:
    """A game played from a given deal, with the fate of every deck position."""

    ruleset: Ruleset
    players: tuple[str, ...]
    order: tuple[int, ...]
    setup_events: tuple
    steps: list = field(default_factory=list)    # (move, events)
    states: list = field(default_factory=list)   # states[i]: before step i; states[-1]: now
    seen: list = field(default_factory=list)     # per seat: the positions that player has seen
    face_up: set = field(default_factory=set)    # positions played face up
    closings: list = field(default_factory=list)

    @property
    def state(self):
        return self.states[-1]

    def replay(self) -> Replay:
        return Replay(self.state, self.setup_events, tuple(self.steps))


def play_prefix(ruleset: Ruleset, seats, order, length: int, rng: random.Random,
                stop_at_red_token: bool = False) -> Prefix:
    """Deal ``order`` and play up to ``length`` random legal moves (fewer if the game ends, or,
    with ``stop_at_red_token``, when the red token is to be placed)."""
    seats = tuple(seats)
    state, setup_events = deal(ruleset, seats, order)
    n, size = len(seats), ruleset.hand_size
    game = Prefix(ruleset, seats, state.order, setup_events, states=[state],
                  seen=[set() for _ in seats])
    hands: list[list[int]] = [[] for _ in seats]
    # R5: one face-down card each (positions 0..n-1), then `size` rounds of one card each; R6: the
    # first player draws the next card.
    for round_ in range(size):
        for seat in range(n):
            hands[seat].append(n + round_ * n + seat)
    hands[0].append(n + size * n)
    for seat in range(n):
        game.seen[seat].update(hands[seat])
    _check_hands(game, hands)

    def take(seat: int, card: int) -> int:
        position = next(p for p in hands[seat] if game.order[p] == card)
        hands[seat].remove(position)
        return position

    while len(game.steps) < length and not game.state.finished:
        if stop_at_red_token and game.state.phase == "red_token":
            break
        before = game.state
        move = rng.choice(legal_moves(before))
        after, events = apply_move(before, move)
        step, mover, drawn_from = len(game.steps), before.to_move, before.deck_pos
        for event in events:
            if isinstance(event, ev.Drew) and event.card is not None:
                seat = seats.index(event.player)
                assert game.order[drawn_from] == event.card, "draws come from the top of the deck"
                hands[seat].append(drawn_from)
                game.seen[seat].add(drawn_from)
                drawn_from += 1
            elif isinstance(event, ev.Played):
                game.face_up.update(take(mover, card) for card in event.cards)
            elif isinstance(event, ev.Closed):
                weight = before.active_shelf(seats.index(event.owner)).weight
                game.closings.append(Closing(step, take(mover, event.card), mover, weight))
        game.steps.append((move, events))
        game.states.append(after)
        _check_hands(game, hands)
    return game


def _check_hands(game: Prefix, hands) -> None:
    """The tracked positions hold exactly the engine's hands (guards the tracking itself)."""
    for seat, positions in enumerate(hands):
        assert tuple(sorted(game.order[p] for p in positions)) == game.state.hands[seat]


def alternative(game: Prefix, reader: int | None, rng: random.Random) -> Prefix:
    """A second game agreeing with everything seat ``reader`` has seen (None: a spectator, who has
    seen only what was played face up), replayed through the same public moves.

    Raises:
        AssertionError: a move of the prefix is not legal in the second game (the construction
            above promises it is; the engine would be deciding legality from a hidden card).
    """
    seen = game.seen[reader] if reader is not None else set()
    played = game.face_up | {c.position for c in game.closings}
    free = [p for p in range(len(game.order)) if p not in seen and p not in played]
    order = list(game.order)
    values = [order[p] for p in free]
    rng.shuffle(values)
    for position, value in zip(free, values, strict=True):
        order[position] = value
    moves = [move for move, _ in game.steps]
    limit = game.ruleset.shelf_limit
    for closing in game.closings:
        if closing.closer == reader:
            continue
        here = closing.position
        options = [q for q in free if order[q] != order[here] and closing.weight + order[q] > limit]
        if options:
            q = rng.choice(options)
            order[q], order[here] = order[here], order[q]
            move = moves[closing.step]
            moves[closing.step] = move._replace(play=Play((order[here],), move.play.owner,
                                                         move.play.sign))
    state, setup_events = deal(game.ruleset, game.players, order)
    other = Prefix(game.ruleset, game.players, state.order, setup_events, states=[state])
    for index, move in enumerate(moves):
        try:
            state, events = apply_move(state, move)
        except ValueError as exc:
            raise AssertionError(f"move {index + 1} of the prefix is illegal in the second game: "
                                 f"{exc}") from None
        other.steps.append((move, events))
        other.states.append(state)
    return other


def unseen_differs(game: Prefix, other: Prefix) -> bool:
    """Whether the second game really differs in a hidden card (so the comparison means
    something)."""
    return game.order != other.order


def move_variants(state, rng: random.Random, count: int) -> list[Move]:
    """Moves for the player to move, legal or not: every kind of mistake the rules reject (R6-R12)
    and every legal move kind, ``count`` of them drawn at random, plus turn and player mistakes."""
    seats, turn = state.players, state.turn
    player = state.player_to_move
    other = next(s for s in seats if s != player)
    numbers = sorted(set(state.ruleset.cards) | {0, 42})
    some = Play((rng.choice(numbers),), player)
    out = [Move(turn - 1, player, play=some), Move(turn + 1, player, play=some),
           Move(turn, other, play=some), Move(turn, "nobody", play=some)]
    refs = _shelf_refs(state)
    if state.phase == "red_token":
        out += [Move(turn, player, red_token=ref) for ref in refs]
        out += [Move(turn, player, play=some), Move(turn, player, golden_dust=1, red_token=refs[0])]
        return out
    plays = [Play(cards, shelf, sign) for shelf in seats for sign in ("positive", "negative")
             for cards in [(c,) for c in numbers] + [(c, c) for c in numbers]
             + [(numbers[1], numbers[2]), (), (1, 1, 1)]]
    reserve = state.reserves[state.to_move]
    pool = [Move(turn, player, dust, play, gold) for play in plays
            for dust in sorted({0, reserve, reserve + 1}) for gold in (None, rng.choice(refs))]
    out += rng.sample(pool, min(count, len(pool)))
    out += [Move(turn, player, red_token=refs[0]), Move(turn, player)]
    legal = legal_moves(state)
    out += rng.sample(legal, min(count // 4, len(legal)))
    return out


def _shelf_refs(state) -> list[ShelfRef]:
    """Shelves in play, the next shelf of each player, and shelves that do not exist."""
    refs = []
    for seat, name in enumerate(state.players):
        refs += [ShelfRef(name, n) for n in (1, len(state.shelves[seat]) + 1)]
    refs.append(ShelfRef(state.players[0], 99))
    refs.append(ShelfRef("nobody", 1))
    return refs
