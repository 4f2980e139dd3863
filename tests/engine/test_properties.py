"""Property tests: random complete games through the engine, invariants checked after every move.

Hypothesis chooses the ruleset, the players, the seed, how often closing plays are allowed, and
a move seed; the move seed drives a private ``random.Random`` that picks each move as an index into
``legal_moves`` (drawing every move from Hypothesis's own data would overrun its buffer on long
games and bias the test towards short ones; the closing rate lets games run until the deck is
empty instead of always ending early by tokens).

After each move: every card is in exactly one place, active shelves are within the limit, no shelf
value is negative, tokens are conserved per kind, tokens on shelves never move, the turn goes up by
one, the old state is untouched. Each game ends within the deck, and replaying its moves from the
seed gives an equal state.
"""

from __future__ import annotations

import copy
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import card_multiset, token_counts
from rebis_pbm.engine import (
    DEALT,
    FINISHED,
    GOLD,
    GOLDEN_DUST,
    PLAY,
    RED,
    RED_TOKEN,
    Ruleset,
    apply_move,
    burdens,
    legal_moves,
    red_token_holder,
    replay,
    score_table,
    setup,
    winners,
)
from rebis_pbm.engine import events as ev

NAMES = ("ana", "bea", "cal", "dan")

rulesets = st.one_of(
    st.just(Ruleset()),
    st.just(Ruleset(zero=True)),
    st.builds(
        Ruleset,
        zero=st.booleans(),
        golden_dust=st.integers(0, 9),
        gold=st.integers(0, 3),
        red=st.integers(0, 1),
        shelf_limit=st.sampled_from([13, 13, 5, 9, 10, 15, 20]),
        hand_size=st.integers(0, 7),
        multiplier=st.sampled_from(["additive", "doubling"]),
    ),
)


def check_state(state):
    """Invariants of any state reached by legal play."""
    rs = state.ruleset
    full = Counter(rs.cards)
    assert Counter(state.order) == full and len(state.order) == rs.card_count
    assert 0 <= state.deck_pos <= len(state.order)
    assert card_multiset(state) == full, "every card is in exactly one place"
    assert token_counts(state) == {GOLDEN_DUST: rs.golden_dust, GOLD: rs.gold, RED: rs.red}
    assert min(state.supply.golden_dust, state.supply.gold, state.supply.red) >= 0
    assert all(r >= 0 for r in state.reserves)
    for seat, row in enumerate(state.shelves):
        assert row, "everyone always has an active shelf"
        assert row[-1].weight <= rs.shelf_limit
        assert state.hands[seat] == tuple(sorted(state.hands[seat]))
        for k, sh in enumerate(row):
            assert sh.value >= 0
            assert sh.weight <= rs.shelf_limit
            first, rest = sh.cards[0], sh.cards[1:]
            assert not first.face_up, "each shelf starts with a face-down card"
            assert all(c.face_up for c in rest)
            assert all(c.factor == 1 for c in rest if c.placed_by == seat), "own cards are +"
            if k == 0:
                assert first.placed_by == DEALT
            else:
                assert first.placed_by not in (seat, DEALT)
                assert row[k - 1].weight + first.number > rs.shelf_limit, "closed by overflow"
        assert all(k in (GOLDEN_DUST, GOLD, RED) for sh in row for k in sh.tokens)
    if state.phase == PLAY:
        assert state.to_move is not None
        assert state.drawn is not None and state.drawn in state.hands[state.to_move]
        if state.turn > 1:  # a ruleset may start with no golden dust and no gold (R11 at turn 1)
            assert state.supply.golden_dust + state.supply.gold > 0
    else:
        assert state.end_reason in (ev.DECK_EMPTY, ev.TOKENS_EXHAUSTED)
        assert state.deck_count == 0 or state.supply.golden_dust + state.supply.gold == 0
        assert state.drawn is None
    if state.phase == RED_TOKEN:
        assert state.to_move == red_token_holder(state) and state.supply.red == 1
    if state.phase == FINISHED:
        assert state.to_move is None and state.supply.red == 0


def check_step(before, snapshot, move, after, events):
    assert before == snapshot, "apply_move never mutates the old state"
    assert after.turn == before.turn + 1
    check_state(after)
    # The cards drawn are the top of the deck, in order (R6, R8.1, R8.2, R9).
    drawn = [e.card for e in events if isinstance(e, ev.Drew)]
    assert [c for c in drawn if c is not None] == list(before.order[before.deck_pos:after.deck_pos])
    assert all(c is None for c in drawn[drawn.index(None):]) if None in drawn else True
    # Tokens on shelves never move (R10): each old shelf's tokens are a prefix of its new tokens.
    for old_row, new_row in zip(before.shelves, after.shelves, strict=True):
        assert len(new_row) >= len(old_row)
        for old, new in zip(old_row, new_row, strict=False):  # new shelves may follow
            assert new.tokens[:len(old.tokens)] == old.tokens
            assert new.cards[:len(old.cards)] == old.cards
    if before.phase == RED_TOKEN:
        assert after.phase == FINISHED and move.red_token is not None
    if after.phase != PLAY:
        assert not any(isinstance(e, ev.TurnBegan) for e in events), "no next turn after the end"
    else:
        assert events[-2] == ev.TurnBegan(after.turn, after.player_to_move)
        assert events[-1] == ev.Drew(after.player_to_move, after.drawn, ev.TURN_DRAW)
        assert after.to_move == (before.to_move + 1) % len(before.players)


def closes(state, move):
    if move.play is None:
        return False
    target = state.players.index(move.play.owner)
    return (target != state.to_move and state.active_shelf(target).weight + move.play.cards[0]
            > state.ruleset.shelf_limit)


def picker(move_seed: int, close_rate: float):
    """A move chooser: uniform among the legal moves, except that a closing play is only allowed
    with probability ``close_rate`` when another play is possible."""
    rng = random.Random(move_seed)

    def choose(state, listed):
        if rng.random() >= close_rate:
            calm = [i for i, m in enumerate(listed) if not closes(state, m)]
            if calm:
                return rng.choice(calm)
        return rng.randrange(len(listed))
    return choose


def play_game(ruleset, players, seed, choose):
    """Play a whole game with ``choose(state, moves) -> index`` picking among the legal moves."""
    state, _ = setup(ruleset, NAMES[:players], seed)
    check_state(state)
    moves = []
    limit = ruleset.card_count + 2  # every turn draws a card, the red move is one more
    while not state.finished:
        listed = legal_moves(state)
        assert listed, "the player to move always has a legal move"
        move = listed[choose(state, listed)]
        snapshot = copy.deepcopy(state)
        after, events = apply_move(state, move)
        check_step(state, snapshot, move, after, events)
        moves.append(move)
        state = after
        assert len(moves) <= limit, "the game ends"
    assert replay(ruleset, NAMES[:players], seed, moves) == state
    assert winners(state) and len(score_table(state)) == players
    assert len(burdens(state)) == players
    return state, moves


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ruleset=rulesets, players=st.integers(2, 4), seed=st.text(max_size=12),
       close_rate=st.sampled_from([1.0, 0.3, 0.1, 0.02, 0.0]),
       move_seed=st.integers(0, 2**32 - 1))
def test_random_complete_games_keep_every_invariant(ruleset, players, seed, close_rate,
                                                    move_seed):
    play_game(ruleset, players, seed, picker(move_seed, close_rate))


def test_random_games_reach_every_rule_path():
    """The same checks over seeded games, counting the rule paths they go through, so that the
    property test above is known not to miss whole parts of the rules."""
    seen = Counter()
    for i in range(120):
        players = 2 + i % 3
        ruleset = Ruleset(zero=bool(i % 2), golden_dust=3 if i % 4 == 0 else 9)
        choose = picker(i, (1.0, 0.3, 0.1, 0.02, 0.0)[i % 5])
        state, moves = play_game(ruleset, players, f"paths-{i}", choose)
        seen[state.end_reason] += 1
        events = [e for m in replay_events(ruleset, players, f"paths-{i}", moves) for e in m]
        for e in events:
            if isinstance(e, ev.Drew):
                seen[f"draw {e.cause}{' empty' if e.card is None else ''}"] += 1
            elif isinstance(e, ev.TokenTaken):
                seen[f"took {e.kind}"] += 1
            elif isinstance(e, ev.TokenPlaced):
                seen[f"placed {e.kind}"] += 1
            elif isinstance(e, (ev.DustPlaced, ev.Closed)):
                seen[type(e).__name__] += 1
    for path in (ev.DECK_EMPTY, ev.TOKENS_EXHAUSTED, "draw negative", "draw closed",
                 "took golden_dust", "took gold", "placed gold", "placed red", "DustPlaced",
                 "Closed", "draw negative empty", "draw closed empty"):
        assert seen[path] > 0, (path, seen)


def replay_events(ruleset, players, seed, moves):
    state, events = setup(ruleset, NAMES[:players], seed)
    out = [events]
    for move in moves:
        state, events = apply_move(state, move)
        out.append(events)
    return out
