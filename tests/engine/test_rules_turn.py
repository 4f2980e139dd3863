"""Rulings R6-R10: a turn, plays on one's own shelf and on another player's shelf, draws."""

from __future__ import annotations

import pytest

from builders import (
    GOLD,
    GOLDEN_DUST,
    NEGATIVE,
    POSITIVE,
    RED,
    card_multiset,
    kinds,
    make_state,
    play,
    rejected,
    shelf,
    token_counts,
)
from rebis_pbm.engine import (
    PLAY,
    IllegalMove,
    Move,
    Play,
    Ruleset,
    Shelf,
    ShelfCard,
    Supply,
    apply_move,
    check_move,
    score_table,
    setup,
)
from rebis_pbm.engine import events as ev


def assert_same_cards_and_tokens(before, after):
    assert card_multiset(after) == card_multiset(before)
    assert token_counts(after) == token_counts(before)


# ---------------------------------------------------------------------------------------- R6


def test_r6_next_turn_begins_with_a_draw_from_the_top():
    st = make_state(hands=[(4, 9), (2,), (3,)], deck=(7, 1, 2))
    after, events = apply_move(st, play(st, 4, "ana"))
    assert after.turn == st.turn + 1
    assert after.player_to_move == "bea" and after.to_move == 1
    assert after.drawn == 7
    assert after.hands[1] == (2, 7)
    assert after.deck == (1, 2) and after.deck_pos == st.deck_pos + 1
    assert after.last_mover == 0
    assert events[-2:] == (ev.TurnBegan(st.turn + 1, "bea"), ev.Drew("bea", 7, ev.TURN_DRAW))


def test_r6_first_turn_draw_happens_at_setup_before_the_first_move():
    state, events = setup(Ruleset(), ("ana", "bea"), "r6")
    assert state.drawn is not None and state.drawn in state.hands[0]
    assert events[-1] == ev.Drew("ana", state.drawn, ev.TURN_DRAW)


def test_r6_golden_dust_goes_from_reserve_onto_own_active_shelf_before_the_action():
    # Ana has a closed shelf 1 and an active shelf 2; she plays on Bea's shelf.
    st = make_state(hands=[(4,)], shelves=[[("?5", "+9", "+4"), ("?3@1",)]],
                    reserves=(3, 0, 0))
    after, events = apply_move(st, play(st, 4, "bea", dust=2))
    assert after.reserves[0] == 1
    assert after.shelves[0][1].tokens == (GOLDEN_DUST, GOLDEN_DUST)
    assert after.shelves[0][0].tokens == ()  # the closed shelf gets nothing
    assert after.shelves[1][0].tokens == ()  # nor does the target
    assert events[0] == ev.DustPlaced("ana", 2, 2)
    assert kinds(events)[:2] == ["DustPlaced", "Played"]
    assert after.supply == st.supply
    assert_same_cards_and_tokens(st, after)


def test_r6_golden_dust_then_a_play_on_own_shelf():
    st = make_state(hands=[(4,)], reserves=(1, 0, 0))
    after, events = apply_move(st, play(st, 4, "ana", dust=1))
    assert after.shelves[0][-1] == shelf("?5", "+4", tokens=(GOLDEN_DUST,), owner=0)
    assert kinds(events)[:2] == ["DustPlaced", "Played"]


def test_r6_all_of_the_reserve_may_be_placed():
    st = make_state(hands=[(4,)], reserves=(9, 0, 0), supply=(0, 3, 1))
    after, _ = apply_move(st, play(st, 4, "ana", dust=9))
    assert after.reserves[0] == 0 and len(after.shelves[0][-1].tokens) == 9


@pytest.mark.parametrize("dust,reserve", [(1, 0), (3, 2), (-1, 2)])
def test_r6_more_golden_dust_than_the_reserve_is_rejected(dust, reserve):
    st = make_state(hands=[(4,)], reserves=(reserve, 0, 0))
    err = rejected(st, play(st, 4, "ana", dust=dust), "golden_dust_reserve", "reserve",
                   f"at most {reserve}", "R6")
    assert str(dust) in err.message


def test_r6_golden_dust_in_another_players_reserve_is_not_yours():
    st = make_state(hands=[(4,)], reserves=(0, 2, 0))
    rejected(st, play(st, 4, "ana", dust=1), "golden_dust_reserve")


def test_r6_exactly_one_action_a_move_without_play_is_rejected():
    st = make_state(hands=[(4,)], reserves=(1, 0, 0))
    rejected(st, Move(st.turn, "ana", golden_dust=1), "play_missing", "play")
    rejected(st, Move(st.turn, "ana"), "play_missing")


# ---------------------------------------------------------------------------------------- R7


def test_r7_single_card_face_up_plus_on_own_active_shelf():
    st = make_state(hands=[(4, 6)], shelves=[[("?5", "+2")]])
    after, events = apply_move(st, play(st, 6, "ana"))
    assert after.shelves[0] == (shelf("?5", "+2", "+6", owner=0),)
    assert after.shelves[0][0].cards[-1] == ShelfCard(6, 1, 0)
    assert after.hands[0] == (4,)
    assert events[0] == ev.Played("ana", "ana", 1, (6,), POSITIVE)
    assert kinds(events) == ["Played", "TurnBegan", "Drew"]  # no draw for the mover
    assert after.reserves == st.reserves and after.supply == st.supply
    assert_same_cards_and_tokens(st, after)


def test_r7_pair_with_the_same_number():
    st = make_state(hands=[(3, 3, 3, 8)])
    after, events = apply_move(st, play(st, (3, 3), "ana"))
    assert after.shelves[0][-1] == shelf("?5", "+3", "+3", owner=0)
    assert after.hands[0] == (3, 8)
    assert events[0] == ev.Played("ana", "ana", 1, (3, 3), POSITIVE)


def test_r7_pair_of_different_numbers_is_rejected():
    st = make_state(hands=[(3, 4)])
    rejected(st, play(st, (3, 4), "ana"), "pair_not_equal", "same number", "3", "4", "R7")


def test_r7_pair_reaching_exactly_the_limit_is_legal():
    """Worked example 1: weight 7 (+5, -2), value 3; a pair of 3s makes weight 13, value 9."""
    st = make_state(hands=[(3, 3, 4, 4)], shelves=[[("?8", "+5", "-2@1")]])
    assert st.shelves[0][0].weight == 7 and st.shelves[0][0].value == 3
    after, _ = apply_move(st, play(st, (3, 3), "ana"))
    assert (after.shelves[0][-1].weight, after.shelves[0][-1].value) == (13, 9)
    assert len(after.shelves[0]) == 1  # reaching the limit does not close it


def test_r7_pair_one_over_the_limit_is_rejected():
    st = make_state(hands=[(3, 3, 4, 4)], shelves=[[("?8", "+5", "-2@1")]])
    rejected(st, play(st, (4, 4), "ana"), "over_shelf_limit", "weighs 7", "15", "shelf limit of 13",
             "cannot close your own shelf", "R7")


@pytest.mark.parametrize("weight,number,legal", [(12, 1, True), (12, 2, False), (4, 9, True),
                                                 (5, 9, False), (13, 1, False)])
def test_r7_single_card_weight_limit(weight, number, legal):
    specs = ("?9",) + tuple(f"+{w}" for w in ([9, weight - 9] if weight > 9 else [weight]))
    st = make_state(hands=[(number,)], shelves=[[specs]])
    assert st.shelves[0][0].weight == weight
    if legal:
        after, _ = apply_move(st, play(st, number, "ana"))
        assert after.shelves[0][0].weight == weight + number
    else:
        rejected(st, play(st, number, "ana"), "over_shelf_limit", str(weight + number))


def test_r7_the_face_down_card_weighs_nothing():
    st = make_state(hands=[(9, 4)], shelves=[[("?9",)]])
    after, _ = apply_move(st, play(st, 9, "ana"))
    assert after.shelves[0][0].weight == 9


def test_r7_negative_sign_on_own_shelf_is_rejected():
    st = make_state(hands=[(4,)])
    rejected(st, play(st, 4, "ana", NEGATIVE), "negative_on_own_shelf", "positive", "R7")


def test_r7_card_not_in_hand_is_rejected():
    st = make_state(hands=[(4, 5)], deck=(6, 6, 6))
    rejected(st, play(st, 6, "ana"), "card_not_in_hand", "no 6")
    rejected(st, play(st, 6, "bea"), "card_not_in_hand", "no 6")
    rejected(st, play(st, (6, 6), "ana"), "card_not_in_hand", "no 6")


@pytest.mark.parametrize("ruleset, number, numbers", [
    (Ruleset(), 12, "its cards are numbered 1 to 9"),
    (Ruleset(), 0, "its cards are numbered 1 to 9"),
    (Ruleset(zero=True), 10, "its cards are numbered 0 to 9"),
    (Ruleset(deck=((1, 4), (2, 4), (5, 4))), 3, "its cards are numbered 1, 2, 5"),
])
def test_r1_r2_a_card_number_the_deck_does_not_hold_is_refused_as_such(ruleset, number, numbers):
    st = make_state(ruleset=ruleset, hands=[(1, 2)], deck=(1, 2, 5))
    rejected(st, play(st, number, "ana"), "no_such_card", f"no card {number} in this game", numbers)


def test_r1_r2_a_pair_of_a_number_the_deck_does_not_hold_is_refused_as_such():
    st = make_state(hands=[(1, 2)], deck=(1, 2, 5))   # no Zero option: no card 0 (R2)
    rejected(st, play(st, (0, 0), "ana"), "no_such_card", "no card 0", "numbered 1 to 9")


def test_r1_no_card_exists_in_a_game_with_an_empty_deck():
    st = make_state(ruleset=Ruleset(deck=(), hand_size=0), hands=[()], deck=())
    rejected(st, play(st, 3, "ana"), "no_such_card", "its deck is empty")


def test_r7_a_pair_needs_two_copies_in_hand():
    st = make_state(hands=[(4, 5)], deck=(5,))
    rejected(st, play(st, (5, 5), "ana"), "card_not_in_hand", "only one 5", "pair")


def test_r7_a_pair_cannot_go_on_another_players_shelf():
    st = make_state(hands=[(5, 5)])
    rejected(st, play(st, (5, 5), "bea"), "pair_on_other_shelf", "one card", "R8")


@pytest.mark.parametrize("cards", [(), (2, 2, 2)])
def test_r7_one_or_two_cards_only(cards):
    st = make_state(hands=[(2, 2, 2)])
    rejected(st, Move(st.turn, "ana", play=Play(cards, "ana")), "card_count")


def test_r7_no_gold_token_with_a_play_on_own_shelf():
    st = make_state(hands=[(2,)], supply=(0, 3, 1))
    rejected(st, play(st, 2, "ana", gold=("ana", 1)), "gold_token_not_allowed")


def test_r7_sign_must_be_positive_or_negative():
    st = make_state(hands=[(2,)])
    rejected(st, play(st, 2, "bea", "minus"), "bad_sign", "minus")
    rejected(st, play(st, 2, "ana", "plus"), "bad_sign")


def test_r7_only_the_active_shelf_receives_cards():
    """Ana's closed shelf 1 weighs 2; her active shelf 2 weighs 12: a 2 is over the limit."""
    st = make_state(hands=[(2,)], shelves=[[("?5", "+2"), ("?5@1", "+9", "+3")]])
    rejected(st, play(st, 2, "ana"), "over_shelf_limit", "shelf 2")
    st2 = make_state(hands=[(1,)], shelves=[[("?5", "+2"), ("?5@1", "+9", "+3")]])
    after, events = apply_move(st2, play(st2, 1, "ana"))
    assert after.shelves[0][0] == st2.shelves[0][0]
    assert after.shelves[0][1].weight == 13
    assert events[0] == ev.Played("ana", "ana", 2, (1,), POSITIVE)


# -------------------------------------------------------------------------------------- R8.1


def closing_position(**kw):
    """Worked example 3: Bea's active shelf holds her face-down card, a +6 and a +5 (weight 11).
    Ana holds 2, 3, 7; Cal has a closed shelf and an active shelf."""
    kw.setdefault("hands", [(2, 3, 7), (1,), (4,)])
    kw.setdefault("shelves", [[("?5",)], [shelf("?4", "+6", "+5", owner=1)],
                              [("?1", "+9", "+3"), ("?2@0", "+4")]])
    kw.setdefault("deck", (8, 9, 6, 1))
    return make_state(**kw)


def test_r8_1_weight_reaching_exactly_the_limit_does_not_close():
    st = closing_position()
    after, events = apply_move(st, play(st, 2, "bea"))
    assert len(after.shelves[1]) == 1 and after.shelves[1][0].weight == 13
    assert events[0] == ev.Played("ana", "bea", 1, (2,), POSITIVE)


def test_r8_1_closing_starts_a_new_shelf_face_down_and_the_closer_takes_golden_dust():
    st = closing_position(supply=(4, 3, 1))
    after, events = apply_move(st, play(st, 3, "bea"))
    old = st.shelves[1][0]
    assert after.shelves[1] == (old, Shelf((ShelfCard(3, 0, 0),)))
    new = after.shelves[1][-1]
    assert (new.weight, new.value, new.tokens) == (0, 0, ())
    assert after.shelves[1][0].value == 11  # the closed shelf keeps its cards
    assert after.reserves == (1, 0, 0)
    assert after.supply == Supply(3, 3, 1)
    assert after.hands[0] == (2, 7)
    assert after.hands[1] == (1, 8, 9)  # the owner drew 1 (8), then her turn's draw (9)
    assert events[:3] == (ev.Closed("ana", "bea", 1, 3, 2), ev.TokenTaken("ana", GOLDEN_DUST),
                          ev.Drew("bea", 8, ev.CLOSED_DRAW))
    assert events[3:] == (ev.TurnBegan(st.turn + 1, "bea"), ev.Drew("bea", 9, ev.TURN_DRAW))
    assert after.phase == PLAY
    assert_same_cards_and_tokens(st, after)


def test_r8_1_the_closed_shelf_keeps_its_tokens():
    st = closing_position(shelves=[[("?5",)], [shelf("?4", "+6", "+5", owner=1,
                                                     tokens=(GOLDEN_DUST, GOLD))], [("?1",)]])
    after, _ = apply_move(st, play(st, 3, "bea"))
    assert after.shelves[1][0] == st.shelves[1][0]
    assert after.shelves[1][0].tokens == (GOLDEN_DUST, GOLD)
    assert score_table(after)[1].shelves[0].score == 11 * 3


def test_r8_1_the_closing_card_is_recorded_as_placed_by_the_closer():
    st = make_state(hands=[(1,), (7,), (1,)], shelves=[[("?5", "+9")], [("?5",)], [("?5",)]],
                    to_move=1)
    after, events = apply_move(st, play(st, 7, "ana"))
    assert after.shelves[0][-1].cards == (ShelfCard(7, 0, 1),)
    assert events[0] == ev.Closed("bea", "ana", 1, 7, 2)


def test_r8_1_closing_with_the_last_golden_dust():
    st = closing_position(supply=(1, 3, 1))
    after, events = apply_move(st, play(st, 3, "bea"))
    assert after.supply == Supply(0, 3, 1)
    assert after.reserves[0] == st.reserves[0] + 1
    assert ev.TokenTaken("ana", GOLDEN_DUST) in events
    assert not any(isinstance(e, ev.TokenPlaced) for e in events)
    assert after.phase == PLAY  # gold remains: the game goes on (R11)
    # ... and it takes golden dust, so a gold_token is refused.
    rejected(st, play(st, 3, "bea", gold=("ana", 1)), "gold_token_not_allowed", "golden dust",
             "R8.1")


def test_r8_1_then_closing_takes_gold_and_needs_gold_token():
    st = closing_position(supply=(0, 3, 1), reserves=(2, 1, 0))
    rejected(st, play(st, 3, "bea"), "gold_token_missing", "gold", "gold_token", "R8.1")
    rejected(st, play(st, 3, "bea", NEGATIVE), "gold_token_missing")


@pytest.mark.parametrize("target", [("ana", 1), ("bea", 1), ("bea", 2), ("cal", 1), ("cal", 2)])
def test_r8_1_gold_goes_on_any_shelf_in_play(target):
    """Ana's own active shelf, Bea's just-closed shelf, Bea's brand-new shelf, Cal's closed shelf,
    Cal's active shelf."""
    st = closing_position(supply=(0, 3, 1))
    after, events = apply_move(st, play(st, 3, "bea", gold=target))
    owner, number = target
    seat = st.players.index(owner)
    assert after.shelves[seat][number - 1].tokens == (GOLD,)
    placed = [(s, i) for s, row in enumerate(after.shelves)
              for i, sh in enumerate(row) if sh.tokens]
    assert placed == [(seat, number - 1)]
    assert after.supply == Supply(0, 2, 1)
    assert after.reserves == st.reserves  # gold never goes to a reserve
    assert events[:4] == (ev.Closed("ana", "bea", 1, 3, 2), ev.TokenTaken("ana", GOLD),
                          ev.TokenPlaced("ana", GOLD, owner, number),
                          ev.Drew("bea", 8, ev.CLOSED_DRAW))
    assert_same_cards_and_tokens(st, after)


def test_r8_1_gold_on_a_shelf_not_in_play_is_rejected():
    st = closing_position(supply=(0, 3, 1))
    rejected(st, play(st, 3, "bea", gold=("bea", 3)), "no_such_shelf", "1 to 2")
    rejected(st, play(st, 3, "bea", gold=("ana", 2)), "no_such_shelf", "ana has only shelf 1")
    rejected(st, play(st, 3, "bea", gold=("cal", 0)), "no_such_shelf")
    rejected(st, play(st, 3, "bea", gold=("zed", 1)), "unknown_player", "zed")


def test_r8_1_gold_token_given_while_golden_dust_remains_is_rejected():
    st = closing_position(supply=(4, 3, 1))
    rejected(st, play(st, 3, "bea", gold=("ana", 1)), "gold_token_not_allowed", "golden dust")


def test_r8_1_gold_token_with_a_play_that_does_not_close_is_rejected():
    st = closing_position(supply=(0, 3, 1))
    rejected(st, play(st, 2, "bea", gold=("ana", 1)), "gold_token_not_allowed", "does not close",
             "weight 11")


def test_r8_1_no_golden_dust_and_no_gold_left_closer_takes_nothing():
    """Only reachable with a ruleset that starts with none of either (see the next test): built
    directly here."""
    rs = Ruleset(golden_dust=0, gold=0)
    st = closing_position(ruleset=rs, supply=(0, 0, 1))
    rejected(st, play(st, 3, "bea", gold=("ana", 1)), "gold_token_not_allowed", "no token")
    after, events = apply_move(st, play(st, 3, "bea"))
    assert after.reserves == st.reserves and after.supply == Supply(0, 0, 1)
    assert all(not sh.tokens for row in after.shelves for sh in row)
    assert events[:3] == (ev.Closed("ana", "bea", 1, 3, 2), ev.TokenTaken("ana", None),
                          ev.Drew("bea", 8, ev.CLOSED_DRAW))
    assert isinstance(events[3], ev.GameEnded)  # and the turn ends the game (R11)


def test_r8_1_taking_nothing_is_reachable_in_a_real_game():
    """With no golden dust and no gold at setup, R11 ends the game after turn 1; a close on turn 1
    needs a card heavier than the shelf limit (an empty active shelf weighs 0)."""
    rs = Ruleset(deck=((2, 20),), golden_dust=0, gold=0, shelf_limit=1)
    state, _ = setup(rs, ("ana", "bea"), "nothing")
    state, events = apply_move(state, play(state, 2, "bea"))
    assert events[0] == ev.Closed("ana", "bea", 1, 2, 2)
    assert events[1] == ev.TokenTaken("ana", None)
    assert events[-2:] == (ev.GameEnded(ev.TOKENS_EXHAUSTED), ev.RedTokenAwarded("bea"))


def test_r8_1_the_owner_draws_one_card_from_an_empty_deck_nothing():
    st = closing_position(deck=())
    after, events = apply_move(st, play(st, 3, "bea"))
    assert ev.Drew("bea", None, ev.CLOSED_DRAW) in events
    assert after.hands[1] == st.hands[1]


def test_r8_1_the_sign_of_a_closing_card_does_not_matter_and_there_is_no_negative_draw():
    st = closing_position()
    plus, plus_events = apply_move(st, play(st, 3, "bea", POSITIVE))
    minus, minus_events = apply_move(st, play(st, 3, "bea", NEGATIVE))
    assert plus == minus
    assert plus_events == minus_events
    assert not any(isinstance(e, ev.Drew) and e.cause == ev.NEGATIVE_DRAW for e in minus_events)
    assert minus.hands[0] == (2, 7)  # Ana drew nothing
    assert minus.shelves[1][-1].cards == (ShelfCard(3, 0, 0),)


def test_r8_1_a_closing_minus_is_never_checked_against_value():
    """Worked example 2: Bea's shelf +4 -3 (weight 7, value 1); Ana's 7 with - closes it."""
    st = make_state(hands=[(1, 2, 7)], shelves=[[("?5",)], [("?6", "+4", "-3@0")]])
    after, events = apply_move(st, play(st, 7, "bea", NEGATIVE))
    assert isinstance(events[0], ev.Closed)
    assert after.shelves[1][0].value == 1


def test_r8_1_closing_a_shelf_needs_a_heavier_card_than_the_room_left():
    """Weight 4 + 9 = 13 does not close; 5 + 9 = 14 does."""
    for weight, closes in ((4, False), (5, True)):
        st = make_state(hands=[(9,)], shelves=[[("?5",)], [("?1", f"+{weight}")]])
        after, events = apply_move(st, play(st, 9, "bea"))
        assert isinstance(events[0], ev.Closed) is closes
        assert len(after.shelves[1]) == (2 if closes else 1)


def test_r8_1_closing_a_shelf_twice_builds_shelf_3():
    st = make_state(hands=[(9,), (5,), (9,)], shelves=[[("?1",)], [("?1", "+9")], [("?1",)]],
                    deck=(1, 1, 1, 1))
    st, events = apply_move(st, play(st, 9, "bea"))            # Ana closes Bea's shelf 1
    assert events[0] == ev.Closed("ana", "bea", 1, 9, 2)
    st, events = apply_move(st, play(st, 5, "bea"))            # Bea plays +5 on her shelf 2
    assert events[0] == ev.Played("bea", "bea", 2, (5,), POSITIVE)
    st, events = apply_move(st, play(st, 9, "bea"))            # Cal: 5 + 9 > 13 closes shelf 2
    assert events[0] == ev.Closed("cal", "bea", 2, 9, 3)
    assert [len(row) for row in st.shelves] == [1, 3, 1]
    assert [sh.weight for sh in st.shelves[1]] == [9, 5, 0]
    assert st.reserves == (1, 0, 1)


# -------------------------------------------------------------------------------------- R8.2


def test_r8_2_plus_play_on_another_shelf_goes_face_up_and_draws_nothing():
    """Worked example 2, 2 with +: weight 9, value 3."""
    st = make_state(hands=[(1, 2, 7)], shelves=[[("?5",)], [("?6", "+4", "-3@0")]],
                    deck=(8, 9))
    after, events = apply_move(st, play(st, 2, "bea"))
    assert after.shelves[1][0].cards[-1] == ShelfCard(2, 1, 0)
    assert (after.shelves[1][0].weight, after.shelves[1][0].value) == (9, 3)
    assert after.hands[0] == (1, 7)
    assert events[0] == ev.Played("ana", "bea", 1, (2,), POSITIVE)
    assert kinds(events) == ["Played", "TurnBegan", "Drew"]
    assert after.hands[1] == (8,)


def test_r8_2_a_card_not_held_is_told_first_to_its_own_player_and_last_to_anyone_else():
    """Ana holds no 5: her own tools, or a move signed by her key (hand_first), hear "you have
    no 5" before R8.2's value check; an unauthenticated move hears R8.2 (public), so that a move
    in her name cannot probe her hand without being played."""
    st = make_state(hands=[(1, 2, 7)], shelves=[[("?5",)], [("?6", "+4", "-3@0")]])
    move = play(st, 5, "bea", NEGATIVE)  # value 1 - 5 < 0, and ana has no 5
    rejected(st, move, "value_below_zero", "R8.2")
    for check in (check_move, apply_move):
        with pytest.raises(IllegalMove) as own:
            check(st, move, hand_first=True)
        assert own.value.code == "card_not_in_hand" and "no 5" in own.value.message
    held = play(st, 2, "bea", NEGATIVE)  # a card she holds: R8.2 answers either way
    with pytest.raises(IllegalMove) as caught:
        check_move(st, held, hand_first=True)
    assert caught.value.code == "value_below_zero"


def test_r8_2_minus_play_that_makes_the_value_negative_is_rejected():
    """Worked example 2, 2 with -: value 1 - 2 = -1."""
    st = make_state(hands=[(1, 2, 7)], shelves=[[("?5",)], [("?6", "+4", "-3@0")]])
    rejected(st, play(st, 2, "bea", NEGATIVE), "value_below_zero", "worth 1", "-1", "below 0",
             "R8.2")


def test_r8_2_minus_play_to_exactly_zero_is_legal_and_the_mover_draws_one():
    """Worked example 2, 1 with -: weight 8, value 0; Ana draws 1."""
    st = make_state(hands=[(1, 2, 7)], shelves=[[("?5",)], [("?6", "+4", "-3@0")]],
                    deck=(8, 9))
    after, events = apply_move(st, play(st, 1, "bea", NEGATIVE))
    assert after.shelves[1][0].cards[-1] == ShelfCard(1, -1, 0)
    assert (after.shelves[1][0].weight, after.shelves[1][0].value) == (8, 0)
    assert after.hands[0] == (2, 7, 8)
    assert events[:2] == (ev.Played("ana", "bea", 1, (1,), NEGATIVE),
                          ev.Drew("ana", 8, ev.NEGATIVE_DRAW))
    assert events[2:] == (ev.TurnBegan(st.turn + 1, "bea"), ev.Drew("bea", 9, ev.TURN_DRAW))
    assert_same_cards_and_tokens(st, after)


def test_r8_2_a_minus_card_weighs_like_a_plus_card():
    """Value 9, weight 9: a -4 makes weight 13 (face up); a -5 would make 14 and close."""
    st = make_state(hands=[(4, 5)], shelves=[[("?5",)], [("?6", "+9")]])
    after, _ = apply_move(st, play(st, 4, "bea", NEGATIVE))
    assert (after.shelves[1][0].weight, after.shelves[1][0].value) == (13, 5)
    after, events = apply_move(st, play(st, 5, "bea", NEGATIVE))
    assert isinstance(events[0], ev.Closed)


def test_r8_2_minus_on_an_empty_active_shelf_is_rejected_but_plus_is_fine():
    st = make_state(hands=[(3,)], shelves=[[("?5",)], [("?9",)]])
    rejected(st, play(st, 3, "bea", NEGATIVE), "value_below_zero", "worth 0", "-3")
    apply_move(st, play(st, 3, "bea", POSITIVE))


def test_r8_2_a_player_can_play_on_any_other_player():
    st = make_state(players=4, hands=[(3,)])
    for owner in ("bea", "cal", "dan"):
        after, _ = apply_move(st, play(st, 3, owner))
        seat = st.players.index(owner)
        assert after.shelves[seat][0].cards[-1] == ShelfCard(3, 1, 0)


def test_r8_unknown_target_player_is_rejected():
    st = make_state(hands=[(3,)])
    rejected(st, play(st, 3, "zed"), "unknown_player", "zed", "ana, bea, cal")


# -------------------------------------------------------------------------------------- R8.3


def test_r8_3_zero_with_minus_sign_is_rejected():
    st = make_state(ruleset=Ruleset(zero=True), hands=[(0, 5)], shelves=[[("?5",)], [("?6", "+9")]])
    rejected(st, play(st, 0, "bea", NEGATIVE), "zero_negative", "0", "positive", "R8.3")


def test_r8_3_zero_with_plus_sign_goes_face_up_weightless():
    st = make_state(ruleset=Ruleset(zero=True), hands=[(0, 5)],
                    shelves=[[("?5",)], [("?6", "+9", "+4")]])
    after, events = apply_move(st, play(st, 0, "bea"))
    assert after.shelves[1][0].cards[-1] == ShelfCard(0, 1, 0)
    assert (after.shelves[1][0].weight, after.shelves[1][0].value) == (13, 13)
    assert len(after.shelves[1]) == 1  # a 0 never closes
    assert kinds(events) == ["Played", "TurnBegan", "Drew"]


def test_r8_3_zeros_on_own_shelf_single_and_pair_and_never_minus():
    st = make_state(ruleset=Ruleset(zero=True), hands=[(0, 0, 0)], shelves=[[("?5", "+9", "+4")]])
    after, _ = apply_move(st, play(st, (0, 0), "ana"))
    assert after.shelves[0][0].weight == 13 and after.hands[0] == (0,)
    rejected(st, play(st, 0, "ana", NEGATIVE), "negative_on_own_shelf")


# ---------------------------------------------------------------------------------------- R9


def test_r9_negative_draw_from_an_empty_deck_draws_nothing():
    st = make_state(hands=[(1, 2)], shelves=[[("?5",)], [("?6", "+4")]], deck=())
    after, events = apply_move(st, play(st, 1, "bea", NEGATIVE))
    assert events[1] == ev.Drew("ana", None, ev.NEGATIVE_DRAW)
    assert after.hands[0] == (2,)
    assert after.deck_pos == st.deck_pos == len(after.order)
    assert ev.GameEnded(ev.DECK_EMPTY) in events


def test_r9_the_turn_draw_takes_the_last_card_then_a_negative_draw_gets_nothing():
    """One card left: the next turn's draw takes it, and a minus play in that turn draws
    nothing."""
    state = make_state(hands=[(1, 5), (9,)], shelves=[[("?5",)], [("?6", "+4")]], deck=(3,),
                       players=2)
    state, events = apply_move(state, play(state, 5, "ana"))
    assert events[-1] == ev.Drew("bea", 3, ev.TURN_DRAW) and state.deck == ()
    assert state.phase == PLAY  # the deck was not empty at the end of Ana's turn
    state, events = apply_move(state, play(state, 3, "ana", NEGATIVE))
    assert events[:2] == (ev.Played("bea", "ana", 1, (3,), NEGATIVE),
                          ev.Drew("bea", None, ev.NEGATIVE_DRAW))


# --------------------------------------------------------------------------------------- R10


def test_r10_no_hand_limit():
    big = tuple(range(1, 10)) * 4
    st = make_state(hands=[big], shelves=[[("?5",)], [("?6", "+9")]], deck=(1, 2, 3))
    after, _ = apply_move(st, play(st, 1, "bea", NEGATIVE))
    assert len(after.hands[0]) == len(big)  # played one, drew one
    rs = Ruleset(hand_size=99, deck=((1, 99), (2, 99), (3, 9)))
    state, _ = setup(rs, ("ana", "bea"), "big")
    assert len(state.hands[0]) == 100


def test_r10_tokens_on_shelves_never_move():
    tokens_before = {"a1": (GOLDEN_DUST, GOLD), "b1": (RED,)}
    st = make_state(hands=[(3,)], reserves=(1, 0, 0), supply=(0, 1, 0),
                    shelves=[[shelf("?5", "+9", "+4", tokens=tokens_before["a1"]), ("?2@1",)],
                             [shelf("?6", "+9", "+2", tokens=tokens_before["b1"], owner=1)],
                             [("?1",)]],
                    ruleset=Ruleset(golden_dust=2, gold=2))
    after, _ = apply_move(st, play(st, 3, "bea", dust=1, gold=("cal", 1)))
    assert after.shelves[0][0].tokens == tokens_before["a1"]
    assert after.shelves[0][1].tokens == (GOLDEN_DUST,)
    assert after.shelves[1][0].tokens == tokens_before["b1"]  # closed, tokens stay
    assert after.shelves[1][1].tokens == ()                   # none follow to the new shelf
    assert after.shelves[2][0].tokens == (GOLD,)


def test_r10_golden_dust_left_in_a_reserve_scores_nothing():
    shelves = [[("?5", "+9")], [("?6", "+4")]]
    poor = make_state(players=2, shelves=shelves, reserves=(0, 0))
    rich = make_state(players=2, shelves=shelves, reserves=(5, 0))
    assert score_table(poor) == score_table(rich)
    assert score_table(rich)[0].total == 9


def test_r10_golden_dust_won_by_closing_waits_for_the_next_turn():
    """The token arrives after step 2, so the same move cannot place it."""
    st = closing_position(supply=(4, 3, 1))
    rejected(st, play(st, 3, "bea", dust=1), "golden_dust_reserve", "0")
