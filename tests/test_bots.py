"""Bots choose legal moves from the mover's information set only (rebis_pbm.bots)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rebis_pbm.bots import STRATEGIES, GreedyBot, RandomBot, make_bot
from rebis_pbm.bots.simulate import game_specs, run
from rebis_pbm.engine import (
    HIDDEN,
    RED_TOKEN,
    Ruleset,
    State,
    apply_move,
    check_move,
    information_set,
    legal_moves,
    scores,
    setup,
)

NAMES = ("ann", "bo", "cy", "di")


def random_position(seed: str, players: int, prefix: int, ruleset: Ruleset) -> State:
    """Deal from ``seed`` and play up to ``prefix`` uniformly random legal moves."""
    state, _ = setup(ruleset, NAMES[:players], seed)
    rng = random.Random(seed)
    for _ in range(prefix):
        if state.finished:
            break
        state, _ = apply_move(state, rng.choice(legal_moves(state)))
    return state


rulesets = st.builds(
    Ruleset,
    zero=st.booleans(),
    golden_dust=st.integers(0, 9),   # few golden dust: closing plays soon owe a gold placement
    gold=st.integers(0, 3),
    red=st.integers(0, 1),
    multiplier=st.sampled_from(["additive", "doubling"]),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.text(min_size=1, max_size=8), players=st.integers(2, 4),
       prefix=st.integers(0, 80), ruleset=rulesets, strategy=st.sampled_from(STRATEGIES),
       bot_seed=st.integers(0, 2**32))
def test_bots_always_return_a_legal_move(seed, players, prefix, ruleset, strategy, bot_seed):
    state = random_position(seed, players, prefix, ruleset)
    if state.finished:
        return
    move = make_bot(strategy, bot_seed).choose(information_set(state, state.to_move))
    check_move(state, move)  # legal in the full state, not only in the bot's information set
    assert move in list(legal_moves(state))


def test_bots_place_the_red_token_legally():
    """R12's last move: the random prefixes above reach it only now and then."""
    state, _ = setup(Ruleset(), NAMES[:3], "red")
    rng = random.Random(3)
    while state.phase != RED_TOKEN:
        state, _ = apply_move(state, rng.choice(legal_moves(state)))
    for bot in (RandomBot(1), GreedyBot()):
        move = bot.choose(information_set(state, state.to_move))
        assert move.red_token is not None
        check_move(state, move)


def _reshuffle_hidden(state: State, viewer: int, rng: random.Random) -> State:
    """Another full state with the same information set for ``viewer``: the cards the viewer
    may not know (deck, other hands, face-down cards not placed by the viewer) are dealt again
    among those same places."""
    view = information_set(state, viewer)
    hidden = list(state.deck)
    hidden += [c for seat, hand in enumerate(state.hands) if seat != viewer for c in hand]
    for row, seen_row in zip(state.shelves, view.shelves, strict=True):
        for shelf, seen in zip(row, seen_row, strict=True):
            hidden += [c.number for c, s in zip(shelf.cards, seen.cards, strict=True)
                       if s.number == HIDDEN]
    rng.shuffle(hidden)
    pool = iter(hidden)
    hands = tuple(hand if seat == viewer else tuple(sorted(next(pool) for _ in hand))
                  for seat, hand in enumerate(state.hands))
    shelves = tuple(
        tuple(type(shelf)(tuple(type(c)(next(pool), c.factor, c.placed_by) if s.number == HIDDEN
                                else c for c, s in zip(shelf.cards, seen.cards, strict=True)),
                          shelf.tokens)
              for shelf, seen in zip(row, seen_row, strict=True))
        for row, seen_row in zip(state.shelves, view.shelves, strict=True))
    deck = tuple(pool)
    order = state.order[:state.deck_pos] + deck
    drawn = state.drawn
    if drawn is not None and state.to_move != viewer:
        drawn = hands[state.to_move][0]  # another player's draw: any card of their new hand
    return State(state.ruleset, state.players, order, state.deck_pos, hands, shelves,
                 state.reserves, state.supply, state.turn, state.phase, state.to_move, drawn,
                 state.last_mover, state.end_reason)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_bot_cannot_tell_apart_games_that_differ_only_in_hidden_cards(strategy):
    rng = random.Random(7)
    checked = 0
    for i in range(40):
        state = random_position(f"hid{i}", 2 + i % 3, rng.randrange(0, 40), Ruleset())
        if state.finished:
            continue
        mover = state.to_move
        other = _reshuffle_hidden(state, mover, rng)
        if other.deck == state.deck and other.hands == state.hands:
            continue  # the reshuffle happened to change nothing: no evidence either way
        assert information_set(other, mover) == information_set(state, mover)
        first = make_bot(strategy, i).choose(information_set(state, mover))
        second = make_bot(strategy, i).choose(information_set(other, mover))
        assert first == second
        checked += 1
    assert checked >= 30


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_bot_refuses_the_full_state(strategy):
    state, _ = setup(Ruleset(), NAMES[:2], "full")
    with pytest.raises(ValueError, match="information_set"):
        make_bot(strategy).choose(state)


def test_a_bot_refuses_a_finished_game():
    state = random_position("over", 2, 500, Ruleset())
    assert state.finished
    with pytest.raises(ValueError, match="over"):
        RandomBot().choose(information_set(state, 0))


def test_unknown_strategy_names_the_known_ones():
    with pytest.raises(ValueError, match="random, greedy"):
        make_bot("clever")


def test_random_bot_same_seed_same_choices_and_covers_the_moves():
    state, _ = setup(Ruleset(), NAMES[:3], "uniform")
    view = information_set(state, state.to_move)
    legal = list(legal_moves(view))
    a = [RandomBot("s").choose(view) for _ in range(3)]
    assert a == [RandomBot("s").choose(view)] * 3
    bot = RandomBot("cover")
    picked = [bot.choose(view) for _ in range(40 * len(legal))]
    assert set(picked) == set(legal)  # uniform: every legal move comes up


def test_greedy_bot_takes_the_best_score_difference_one_move_ahead():
    state = random_position("greedy", 3, 12, Ruleset())
    mover = state.to_move
    view = information_set(state, mover)

    def gain(move):
        totals = scores(apply_move(state, move)[0])  # the full state scores the same
        return totals[mover] - (sum(totals) - totals[mover])

    best = max(gain(m) for m in legal_moves(state))
    chosen = GreedyBot().choose(view)
    assert gain(chosen) == best
    assert chosen == next(m for m in legal_moves(state) if gain(m) == best)  # ties: the first


def test_greedy_beats_random_in_most_of_200_two_player_games():
    specs = game_specs(200, (2,), ("greedy", "random"), "greedy-vs-random")
    results, _ = run(specs)
    greedy_won = 0
    for result in results:
        assert not result.problems
        greedy = result.spec.strategies.index("greedy")
        if result.scores[greedy] > result.scores[1 - greedy]:
            greedy_won += 1
    assert greedy_won > 100
