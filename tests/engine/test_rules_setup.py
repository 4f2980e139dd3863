"""Rulings R1-R5: components, ruleset parameters and setup."""

from __future__ import annotations

from collections import Counter

import pytest

from builders import card_multiset, make_state, play, rejected, shelf
from rebis_pbm.engine import (
    DEALT,
    GOLD,
    GOLDEN_DUST,
    RED,
    Ruleset,
    ShelfCard,
    apply_move,
    score_table,
    seat_order,
    setup,
    shuffled,
)
from rebis_pbm.engine import events as ev
from rebis_pbm.engine.shuffle import SEATS_DOMAIN

# ---------------------------------------------------------------------------------------- R1


def test_r1_default_deck_is_81_cards_nine_of_each_1_to_9():
    rs = Ruleset()
    assert rs.card_count == 81 == len(rs.cards)
    assert Counter(rs.cards) == {n: 9 for n in range(1, 10)}
    assert 0 not in rs.cards
    assert list(rs.cards) == sorted(rs.cards)


def test_r1_a_dealt_game_holds_exactly_the_81_cards():
    state, _ = setup(Ruleset(), ("ana", "bea", "cal"), "r1")
    assert card_multiset(state) == Counter(Ruleset().cards)
    assert len(state.order) == 81


def test_r1_deck_is_a_parameter_and_round_trips_through_the_record():
    rs = Ruleset(deck=((5, 3), (1, 2), (12, 1)))
    assert rs.cards == (1, 1, 5, 5, 5, 12)
    assert rs.deck == ((1, 2), (5, 3), (12, 1))
    assert rs.as_dict()["deck"] == {"1": 2, "5": 3, "12": 1}
    assert Ruleset.from_dict(rs.as_dict()) == rs
    assert Ruleset.from_dict({}) == Ruleset()


@pytest.mark.parametrize("deck", [((1, 2), (1, 3)), ((100, 1),), ((1, 100),), ((-1, 1),)])
def test_r1_deck_parameter_out_of_range_is_refused(deck):
    with pytest.raises(ValueError, match="deck"):
        Ruleset(deck=deck)


def test_r1_unknown_ruleset_field_is_refused():
    with pytest.raises(ValueError, match="unknown field 'colour'"):
        Ruleset.from_dict({"colour": "red"})


# ---------------------------------------------------------------------------------------- R2


def test_r2_zero_option_adds_nine_zeros_for_90_cards():
    rs = Ruleset(zero=True)
    assert rs.card_count == 90
    assert Counter(rs.cards) == {n: 9 for n in range(0, 10)}
    assert rs.cards[:9] == (0,) * 9, "the 0s come first in the starting order"
    assert Ruleset().zero is False


def test_r2_zero_option_adds_to_a_custom_deck_that_already_has_zeros():
    rs = Ruleset(deck=((0, 2), (3, 1)), zero=True)
    assert rs.cards == (0,) * 11 + (3,)


def test_r2_zero_game_deals_from_the_90_cards():
    state, _ = setup(Ruleset(zero=True), ("ana", "bea"), "zero")
    assert card_multiset(state) == Counter(Ruleset(zero=True).cards)


def test_r2_zero_cards_weigh_and_are_worth_nothing():
    s = shelf("?4", "+0", "+0", "+3")
    assert (s.weight, s.value) == (3, 3)


def test_r2_zero_field_must_be_boolean():
    with pytest.raises(ValueError, match="zero"):
        Ruleset(zero=1)


# ---------------------------------------------------------------------------------------- R3


def test_r3_supply_starts_with_9_golden_dust_3_gold_1_red():
    state, _ = setup(Ruleset(), ("ana", "bea"), "r3")
    assert (state.supply.golden_dust, state.supply.gold, state.supply.red) == (9, 3, 1)
    assert state.supply.left(GOLDEN_DUST) == 9 and state.supply.left(GOLD) == 3
    assert state.supply.left(RED) == 1
    assert state.reserves == (0, 0)
    assert all(s.tokens == () for row in state.shelves for s in row)


def test_r3_token_counts_are_parameters():
    state, _ = setup(Ruleset(golden_dust=2, gold=0, red=0), ("ana", "bea"), "r3")
    assert (state.supply.golden_dust, state.supply.gold, state.supply.red) == (2, 0, 0)


@pytest.mark.parametrize("field,value", [("golden_dust", -1), ("gold", 100), ("red", 2),
                                         ("red", True), ("gold", 1.0)])
def test_r3_token_parameters_out_of_range_are_refused(field, value):
    with pytest.raises(ValueError, match=field):
        Ruleset(**{field: value})


# ---------------------------------------------------------------------------------------- R4


@pytest.mark.parametrize("tokens", range(0, 7))
def test_r4_multiplier_additive_is_one_plus_tokens(tokens):
    assert Ruleset().token_multiplier(tokens) == 1 + tokens


@pytest.mark.parametrize("tokens", range(0, 7))
def test_r4_multiplier_doubling_is_two_per_token(tokens):
    assert Ruleset(multiplier="doubling").token_multiplier(tokens) == 2 ** tokens


def test_r4_multiplier_counts_every_token_kind_alike_in_the_score():
    for rs, expected in ((Ruleset(), 5 * 4), (Ruleset(multiplier="doubling"), 5 * 8)):
        st = make_state(ruleset=rs, players=2,
                        shelves=[[shelf("?9", "+5", tokens=(GOLDEN_DUST, GOLD, RED))]])
        assert score_table(st)[0].total == expected
        assert score_table(st)[0].shelves[0].tokens == 3


def test_r4_unknown_multiplier_is_refused():
    with pytest.raises(ValueError, match="multiplier"):
        Ruleset(multiplier="tripling")


def test_r4_shelf_limit_15_allows_the_pair_that_13_forbids():
    """Own shelf weighing 9; a pair of 3s makes 15."""
    def position(limit):
        return make_state(ruleset=Ruleset(shelf_limit=limit), hands=[(3, 3, 8)],
                          shelves=[[("?2", "+9")]])
    st13 = position(13)
    rejected(st13, play(st13, (3, 3), "ana"), "over_shelf_limit", "15", "13")
    st15 = position(15)
    after, _ = apply_move(st15, play(st15, (3, 3), "ana"))
    assert after.shelves[0][-1].weight == 15


def test_r4_shelf_limit_decides_when_another_players_shelf_closes():
    """Bea's shelf weighs 12; Ana's 3 makes 15: closes under 13, goes face up under 15."""
    def position(limit):
        return make_state(ruleset=Ruleset(shelf_limit=limit), hands=[(3,)],
                          shelves=[[("?1",)], [("?2", "+7", "+5")]])
    after13, events13 = apply_move(position(13), play(position(13), 3, "bea"))
    assert len(after13.shelves[1]) == 2
    assert any(isinstance(e, ev.Closed) for e in events13)
    after15, events15 = apply_move(position(15), play(position(15), 3, "bea"))
    assert len(after15.shelves[1]) == 1 and after15.shelves[1][0].weight == 15
    assert not any(isinstance(e, ev.Closed) for e in events15)


@pytest.mark.parametrize("hand_size", [0, 3, 5, 7])
def test_r4_hand_size_is_a_parameter(hand_size):
    state, events = setup(Ruleset(hand_size=hand_size), ("ana", "bea", "cal"), "hands")
    assert [len(h) for h in state.hands] == [hand_size + 1, hand_size, hand_size]
    assert state.deck_pos == 3 * (1 + hand_size) + 1
    assert events[0] == ev.Dealt(("ana", "bea", "cal"), hand_size)


@pytest.mark.parametrize("field,value", [("shelf_limit", 0), ("hand_size", -1), ("hand_size", 100)])
def test_r4_limits_out_of_range_are_refused(field, value):
    with pytest.raises(ValueError, match=field):
        Ruleset(**{field: value})


# ---------------------------------------------------------------------------------------- R5

UNIQUE = Ruleset(deck=tuple((n, 1) for n in range(1, 41)))  # every card different: traceable


@pytest.mark.parametrize("players", [("ana", "bea"), ("ana", "bea", "cal"),
                                     ("dan", "cal", "bea", "ana")])
def test_r5_deal_order_face_down_card_then_hand_size_rounds_then_first_draw(players):
    n = len(players)
    state, events = setup(UNIQUE, players, "deal")
    order = shuffled(UNIQUE.cards, "deal")
    assert state.order == order
    # One face-down card to each player in seat order, from the top: it starts shelf 1.
    for seat in range(n):
        assert state.shelves[seat][0].cards == (ShelfCard(order[seat], 0, DEALT),)
        assert len(state.shelves[seat]) == 1 and state.shelves[seat][0].tokens == ()
    # Then hand_size rounds, one card to each player in seat order.
    rounds = [order[n + r * n: n + (r + 1) * n] for r in range(5)]
    first = order[n * 6]
    for seat in range(n):
        dealt = [rnd[seat] for rnd in rounds]
        expected = dealt + ([first] if seat == 0 else [])
        assert state.hands[seat] == tuple(sorted(expected))
    # Turn 1 begins with the first player's draw (R6 step 1).
    assert state.drawn == first
    assert state.deck_pos == n * 6 + 1
    assert state.deck == order[n * 6 + 1:]
    assert (state.turn, state.to_move, state.player_to_move) == (1, 0, players[0])
    assert state.last_mover is None and state.end_reason is None
    assert events == (ev.Dealt(tuple(players), 5), ev.TurnBegan(1, players[0]),
                      ev.Drew(players[0], first, ev.TURN_DRAW))


def test_r5_same_seed_same_deal_other_seed_other_deal():
    a, _ = setup(Ruleset(), ("ana", "bea"), "same")
    b, _ = setup(Ruleset(), ("ana", "bea"), "same")
    c, _ = setup(Ruleset(), ("ana", "bea"), "other")
    assert a == b
    assert a.order != c.order


def test_r5_the_deal_does_not_depend_on_player_names():
    a, _ = setup(Ruleset(), ("ana", "bea"), "names")
    b, _ = setup(Ruleset(), ("x", "y"), "names")
    assert a.order == b.order and a.hands == b.hands


@pytest.mark.parametrize("players", [("ana",), ("a", "b", "c", "d", "e"), ()])
def test_r5_two_to_four_players(players):
    with pytest.raises(ValueError, match="2 to 4 players"):
        setup(Ruleset(), players, "x")


def test_r5_player_names_must_differ():
    with pytest.raises(ValueError, match="different name"):
        setup(Ruleset(), ("ana", "ana"), "x")


def test_r5_deck_must_cover_the_deal_and_the_first_draw():
    needed = 3 * (1 + 5) + 1
    setup(Ruleset(deck=((1, needed),)), ("a", "b", "c"), "x")
    with pytest.raises(ValueError, match=f"at least {needed}"):
        setup(Ruleset(deck=((1, needed - 1),)), ("a", "b", "c"), "x")


@pytest.mark.parametrize("players", [("ana", "bea"), ("ana", "bea", "cal"),
                                     ("ana", "bea", "cal", "dan")])
def test_r5_seat_order_from_seed_is_a_deterministic_permutation(players):
    seen = set()
    for i in range(60):
        seed = f"seats-{i}"
        order = seat_order(players, seed)
        assert sorted(order) == sorted(players)
        assert order == seat_order(list(players), seed)  # deterministic, any sequence type
        assert order == shuffled(players, seed, SEATS_DOMAIN)
        seen.add(order)
    assert len(seen) > 1, "different seeds give different seat orders"
    if len(players) == 2:
        assert seen == {("ana", "bea"), ("bea", "ana")}


def test_r5_seat_order_stream_is_not_the_deck_stream():
    """The seats use their own domain: over many seeds they do not just follow the deck's shuffle
    of the same list."""
    players = ("a", "b", "c", "d")
    differ = [seat_order(players, str(i)) != shuffled(players, str(i)) for i in range(30)]
    assert any(differ)


def test_r5_first_seat_of_a_drawn_order_plays_first():
    seats = seat_order(("ana", "bea", "cal"), "game-7")
    state, events = setup(Ruleset(), seats, "game-7")
    assert state.player_to_move == seats[0]
    assert events[1] == ev.TurnBegan(1, seats[0])
    assert len(state.hands[0]) == 6


def test_r5_play_passes_in_seat_order_and_wraps():
    state, _ = setup(Ruleset(), ("ana", "bea", "cal"), "round")
    movers = []
    for _ in range(7):
        movers.append(state.player_to_move)
        hand = state.hands[state.to_move]
        target = state.players[(state.to_move + 1) % 3]
        state, _ = apply_move(state, play(state, hand[0], target))
    assert movers == ["ana", "bea", "cal", "ana", "bea", "cal", "ana"]
