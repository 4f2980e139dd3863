"""Rulings R11-R13 (end of the game, red token, score) and the turn/seat checks."""

from __future__ import annotations

from itertools import combinations

import pytest

from builders import GOLD, GOLDEN_DUST, NEGATIVE, RED, make_state, play, red, rejected, shelf
from rebis_pbm.engine import (
    FINISHED,
    PLAY,
    RED_TOKEN,
    Burden,
    Move,
    Play,
    Ruleset,
    ShelfRef,
    Supply,
    apply_move,
    burdens,
    legal_moves,
    red_token_holder,
    score_table,
    setup,
    shelves_in_play,
    winners,
)
from rebis_pbm.engine import events as ev

# --------------------------------------------------------------------------------------- R11


def test_r11_game_ends_at_the_end_of_the_turn_when_the_deck_is_empty():
    st = make_state(hands=[(4, 6)], deck=())
    after, events = apply_move(st, play(st, 4, "ana"))
    assert events[0] == ev.Played("ana", "ana", 1, (4,), "positive")
    assert events[1] == ev.GameEnded(ev.DECK_EMPTY)
    assert after.end_reason == ev.DECK_EMPTY
    assert after.phase == RED_TOKEN and after.turn == st.turn + 1
    assert after.last_mover == 0 and after.drawn is None
    # After the end: no next turn, no next draw.
    assert not any(isinstance(e, ev.TurnBegan) for e in events)
    assert [e for e in events if isinstance(e, ev.Drew)] == []
    assert after.deck_pos == st.deck_pos


def test_r11_the_game_goes_on_while_one_card_remains():
    st = make_state(hands=[(4, 6)], deck=(7,))
    after, events = apply_move(st, play(st, 4, "ana"))
    assert after.phase == PLAY and after.end_reason is None
    assert events[-1] == ev.Drew("bea", 7, ev.TURN_DRAW)
    assert after.deck == ()
    # Bea's turn empties nothing more, but the deck is empty at its end: the game ends.
    after2, events2 = apply_move(after, play(after, 7, "bea"))
    assert events2[-2:] == (ev.GameEnded(ev.DECK_EMPTY), ev.RedTokenAwarded(
        after2.players[after2.to_move]))


def test_r11_a_negative_draw_of_the_last_card_ends_the_game():
    st = make_state(hands=[(1, 6)], shelves=[[("?5",)], [("?6", "+4")]], deck=(7,))
    after, events = apply_move(st, play(st, 1, "bea", NEGATIVE))
    assert events[1] == ev.Drew("ana", 7, ev.NEGATIVE_DRAW)
    assert events[2] == ev.GameEnded(ev.DECK_EMPTY)
    assert after.phase == RED_TOKEN


def test_r11_the_closed_owners_draw_of_the_last_card_ends_the_game():
    st = make_state(hands=[(9,)], shelves=[[("?5",)], [("?6", "+9")]], deck=(7,))
    after, events = apply_move(st, play(st, 9, "bea"))
    assert ev.Drew("bea", 7, ev.CLOSED_DRAW) in events
    assert after.end_reason == ev.DECK_EMPTY


def test_r11_game_ends_when_the_last_gold_is_taken():
    st = make_state(hands=[(9, 1)], shelves=[[("?5",)], [("?6", "+9")]], supply=(0, 1, 1))
    after, events = apply_move(st, play(st, 9, "bea", gold=("ana", 1)))
    assert after.supply == Supply(0, 0, 1)
    assert ev.GameEnded(ev.TOKENS_EXHAUSTED) in events
    assert after.end_reason == ev.TOKENS_EXHAUSTED and after.phase == RED_TOKEN
    assert after.deck != ()  # cards remain, the game ends anyway
    assert not any(isinstance(e, ev.TurnBegan) for e in events)


def test_r11_the_red_token_in_the_supply_does_not_keep_the_game_going():
    st = make_state(hands=[(2,)], supply=(0, 0, 1), ruleset=Ruleset(golden_dust=0, gold=0))
    after, _ = apply_move(st, play(st, 2, "ana"))
    assert after.end_reason == ev.TOKENS_EXHAUSTED


def test_r11_game_goes_on_while_golden_dust_or_gold_remains():
    for supply in ((0, 1, 1), (1, 0, 1), (1, 0, 0), (0, 1, 0)):
        st = make_state(hands=[(2, 3)], supply=supply)
        after, events = apply_move(st, play(st, 2, "ana"))
        assert after.phase == PLAY, supply
        assert not any(isinstance(e, ev.GameEnded) for e in events)


def test_r11_taking_the_last_golden_dust_while_gold_remains_does_not_end():
    st = make_state(hands=[(9,)], shelves=[[("?5",)], [("?6", "+9")]], supply=(1, 1, 1))
    after, _ = apply_move(st, play(st, 9, "bea"))
    assert after.phase == PLAY and after.supply == Supply(0, 1, 1)


def test_r11_both_reasons_at_once_are_reported_as_deck_empty():
    st = make_state(hands=[(9,)], shelves=[[("?5",)], [("?6", "+9")]], supply=(0, 1, 1),
                    deck=())
    after, events = apply_move(st, play(st, 9, "bea", gold=("bea", 2)))
    assert after.end_reason == ev.DECK_EMPTY
    assert [e for e in events if isinstance(e, ev.GameEnded)] == [ev.GameEnded(ev.DECK_EMPTY)]


def test_r11_no_move_after_the_end():
    st = make_state(hands=[(4, 6)], deck=(), ruleset=Ruleset(red=0), supply=(9, 3, 0))
    after, _ = apply_move(st, play(st, 4, "ana"))
    assert after.phase == FINISHED and after.finished
    assert legal_moves(after) == []
    rejected(after, play(after, 6, "bea", player="bea"), "game_over", "over")
    rejected(after, Move(after.turn, "ana", play=Play((6,), "ana")), "game_over")


def test_r11_the_game_ends_within_the_deck_in_a_real_game():
    state, _ = setup(Ruleset(), ("ana", "bea"), "r11")
    turns = 0
    while state.phase == PLAY:
        state, _ = apply_move(state, legal_moves(state)[0])
        turns += 1
        assert turns <= 81
    assert state.end_reason in (ev.DECK_EMPTY, ev.TOKENS_EXHAUSTED)


# --------------------------------------------------------------------------------------- R12


def example4_position(**kw):
    """Worked example 4 (docs/rules.md), with Bea about to take the last turn (the deck is empty).

    Minus cards: Ana 4 + 2, Bea 4 + 3 (on two shelves: no single shelf under the limit 13 can
    carry a -7), Cal 5 + 1. Bea plays one of her 3 cards on her own shelf, leaving 2 in hand."""
    kw.setdefault("hands", [(1, 2, 3), (1, 5, 6), (4, 7, 8)])
    kw.setdefault("shelves", [
        [("?5", "+6", "-4@1", "-2@2")],
        [("?5", "+4", "-4@0"), ("?2@0", "+3", "-3@2")],
        [("?1", "+4", "+4", "-5@0"), ("?7@0", "+6", "-1@1")],
    ])
    kw.setdefault("deck", ())
    kw.setdefault("to_move", 1)
    return make_state(**kw)


def test_r12_burden_is_minus_cards_on_all_own_shelves_plus_hand_size():
    st = example4_position()
    assert burdens(st) == (Burden("ana", 6, 3, 9), Burden("bea", 7, 3, 10), Burden("cal", 6, 3, 9))


def test_r12_burden_ignores_plus_cards_face_down_cards_and_the_minus_cards_you_played():
    st = make_state(players=2, hands=[(1,), ()],
                    shelves=[[("?9", "+9", "+4"), ("?8@1", "+3")], [("?6", "+7", "-3@0")]])
    assert burdens(st) == (Burden("ana", 0, 1, 1), Burden("bea", 3, 0, 3))


def test_r12_worked_example_4_ties_go_to_more_cards_then_to_seat_order_after_the_last_mover():
    st = example4_position()
    after, events = apply_move(st, play(st, 1, "bea"))
    assert [b.total for b in burdens(after)] == [9, 9, 9]
    assert [b.hand for b in burdens(after)] == [3, 2, 3]
    assert events[-2:] == (ev.GameEnded(ev.DECK_EMPTY), ev.RedTokenAwarded("cal"))
    assert after.phase == RED_TOKEN and after.player_to_move == "cal" and after.last_mover == 1
    assert red_token_holder(after) == 2


def test_r12_highest_burden_gets_the_red_token_whoever_moved_last():
    st = example4_position(hands=[(1, 2, 3, 4), (1, 5, 6), (4, 7, 8)])
    after, events = apply_move(st, play(st, 1, "bea"))
    assert events[-1] == ev.RedTokenAwarded("ana")
    assert after.to_move == 0 and after.turn == st.turn + 1


def test_r12_the_red_token_is_placed_as_the_last_move():
    st = example4_position()
    after, _ = apply_move(st, play(st, 1, "bea"))
    assert legal_moves(after) == [red(after, ref.player, ref.shelf)
                                  for ref in shelves_in_play(after)]
    final, events = apply_move(after, red(after, "cal", 1))
    assert events == (ev.TokenPlaced("cal", RED, "cal", 1), ev.GameFinished())
    assert final.phase == FINISHED and final.to_move is None and final.player_to_move is None
    assert final.shelves[2][0].tokens == (RED,)
    assert final.supply.red == 0
    assert final.turn == after.turn + 1
    assert (final.hands, final.reserves, final.deck_pos) == (after.hands, after.reserves,
                                                              after.deck_pos)
    assert final.last_mover == after.last_mover and final.end_reason == after.end_reason
    assert legal_moves(final) == []
    rejected(final, red(after, "cal", 1, player="cal"), "game_over")


def test_r12_the_red_token_may_go_on_any_players_shelf_closed_or_active():
    st = example4_position()
    after, _ = apply_move(st, play(st, 1, "bea"))
    for ref in shelves_in_play(after):
        final, _ = apply_move(after, red(after, ref.player, ref.shelf))
        seat = after.players.index(ref.player)
        assert final.shelves[seat][ref.shelf - 1].tokens == (RED,)
    assert len(shelves_in_play(after)) == 5


def test_r12_red_move_validation():
    st = example4_position()
    after, _ = apply_move(st, play(st, 1, "bea"))  # Cal holds the red token
    t = after.turn
    rejected(after, Move(t, "cal", play=Play((4,), "cal")), "red_token_expected", "red token",
             "R12")
    rejected(after, Move(t, "cal", play=Play((4,), "cal"), red_token=ShelfRef("cal", 1)),
             "red_token_expected")
    rejected(after, Move(t, "cal", golden_dust=1, red_token=ShelfRef("cal", 1)),
             "red_token_expected")
    rejected(after, Move(t, "cal", gold_token=ShelfRef("cal", 1), red_token=ShelfRef("cal", 1)),
             "red_token_expected")
    rejected(after, Move(t, "cal"), "red_token_expected")
    rejected(after, red(after, "cal", 3), "no_such_shelf", "cal", "1 to 2")
    rejected(after, red(after, "ana", 0), "no_such_shelf", "ana has only shelf 1")
    rejected(after, red(after, "zed", 1), "unknown_player", "zed")
    rejected(after, red(after, "Bea", 1), "unknown_player", "red_token names player 'Bea'",
             "did you mean 'bea'?")
    rejected(after, red(after, "ana", 1, player="ana"), "not_your_turn", "cal")
    rejected(after, Move(t - 1, "cal", red_token=ShelfRef("cal", 1)), "stale_turn")
    rejected(after, Move(t + 1, "cal", red_token=ShelfRef("cal", 1)), "future_turn")


def test_r12_red_token_too_early_during_play():
    st = make_state(hands=[(4,)])
    rejected(st, Move(st.turn, "ana", red_token=ShelfRef("ana", 1)), "red_token_too_early",
             "R12")
    rejected(st, Move(st.turn, "ana", play=Play((4,), "ana"), red_token=ShelfRef("ana", 1)),
             "red_token_too_early")


def test_r12_ruleset_without_red_token_finishes_with_no_red_move():
    rs = Ruleset(red=0)
    st = example4_position(ruleset=rs, supply=(9, 3, 0))
    after, events = apply_move(st, play(st, 1, "bea"))
    assert events[-2:] == (ev.GameEnded(ev.DECK_EMPTY), ev.GameFinished())
    assert not any(isinstance(e, ev.RedTokenAwarded) for e in events)
    assert after.phase == FINISHED and after.to_move is None
    assert after.end_reason == ev.DECK_EMPTY and after.last_mover == 1
    assert legal_moves(after) == []


def tie_position(players: int, tied: set[int], last_mover: int | None):
    """Every tied seat: burden 5 with 2 cards in hand; the others: burden 4."""
    hands, rows = [], []
    for seat in range(players):
        hands.append((1, 2))
        minus = 3 if seat in tied else 2
        rows.append([("?5", "+6", f"-{minus}@{(seat + 1) % players}")])
    return make_state(players=players, hands=hands, shelves=rows, phase=FINISHED, to_move=None,
                      last_mover=last_mover)


CASES = [(n, set(t), last) for n in (2, 3, 4) for k in range(2, n + 1)
         for t in combinations(range(n), k) for last in [None, *range(n)]]


@pytest.mark.parametrize("players,tied,last", CASES)
def test_r12_still_tied_first_in_seat_order_after_the_last_mover(players, tied, last):
    start = 0 if last is None else (last + 1) % players
    expected = next(s for s in [(start + k) % players for k in range(players)] if s in tied)
    assert red_token_holder(tie_position(players, tied, last)) == expected


def test_r12_tie_break_wraps_around_the_table():
    """Ana and Cal tied, Dan took the last turn: counting starts at Ana (wrap) -> Ana; Cal took
    it: counting starts at Dan, then wraps to Ana -> Ana; Ana took it: Bea, Cal -> Cal."""
    assert red_token_holder(tie_position(4, {0, 2}, 3)) == 0
    assert red_token_holder(tie_position(4, {0, 2}, 2)) == 0
    assert red_token_holder(tie_position(4, {0, 2}, 0)) == 2
    assert red_token_holder(tie_position(4, {0, 2}, 1)) == 2


def test_r12_tie_break_wrap_around_through_a_real_last_turn():
    """Three players, Cal (last seat) takes the last turn; Ana and Cal tie in burden and hand.
    Counting starts after Cal: wraps to Ana."""
    st = make_state(hands=[(1, 2), (1,), (2, 3, 4)],
                    shelves=[[("?5", "+6", "-3@1")], [("?5",)], [("?5", "+6", "-3@1")]],
                    to_move=2, deck=())
    after, events = apply_move(st, play(st, 4, "bea"))
    assert [b.total for b in burdens(after)] == [5, 1, 5]
    assert events[-1] == ev.RedTokenAwarded("ana")
    # Same table, Bea took the last turn instead: counting starts at Cal.
    st2 = make_state(hands=[(1, 2), (1, 4), (2, 3)],
                     shelves=[[("?5", "+6", "-3@1")], [("?5",)], [("?5", "+6", "-3@1")]],
                     to_move=1, deck=())
    after2, events2 = apply_move(st2, play(st2, 4, "ana"))
    assert [b.total for b in burdens(after2)] == [5, 1, 5]
    assert events2[-1] == ev.RedTokenAwarded("cal")


def test_r12_more_cards_in_hand_beats_seat_order():
    st = make_state(players=4, hands=[(1,), (1, 2, 3), (1, 2, 3, 4), (1, 2, 3)],
                    shelves=[[("?5", "+9", "-4@1")], [("?5", "+9", "-2@1")],
                             [("?5", "+9", "-1@1")], [("?5", "+9", "-2@0")]],
                    phase=FINISHED, to_move=None, last_mover=0)
    assert [b.total for b in burdens(st)] == [5, 5, 5, 5]
    assert red_token_holder(st) == 2


# --------------------------------------------------------------------------------------- R13


def example4_scores(multiplier: str):
    """Worked example 4's Cal: closed value 12 with gold + red, closed value 9 with golden dust,
    active value 5."""
    return make_state(ruleset=Ruleset(multiplier=multiplier), players=3, supply=(8, 2, 0),
                      shelves=[[("?5", "+9", "+2")], [("?5", "+4", "-4@0")],
                               [shelf("?1", "+9", "+3", tokens=(GOLD, RED)),
                                shelf("?1@0", "+6", "+4", "-1@0", tokens=(GOLDEN_DUST,)),
                                ("?2@1", "+5")]])


def test_r13_score_per_shelf_is_value_times_multiplier_closed_and_active_summed():
    table = score_table(example4_scores("additive"))
    cal = table[2]
    assert cal.player == "cal"
    assert [(s.shelf, s.active, s.weight, s.value, s.tokens, s.multiplier, s.score)
            for s in cal.shelves] == [(1, False, 12, 12, 2, 3, 36), (2, False, 11, 9, 1, 2, 18),
                                      (3, True, 5, 5, 0, 1, 5)]
    assert cal.total == 59
    assert [p.total for p in table] == [11, 0, 59]
    assert winners(example4_scores("additive")) == ("cal",)


def test_r13_doubling_score_of_worked_example_4():
    table = score_table(example4_scores("doubling"))
    assert [s.score for s in table[2].shelves] == [48, 18, 5]
    assert table[2].total == 71


def test_r13_face_down_cards_score_nothing():
    st = make_state(players=2, shelves=[[("?9", "?8@1")], [("?1",)]])
    assert [p.total for p in score_table(st)] == [0, 0]


def test_r13_equal_highest_scores_share_the_win():
    st = make_state(players=3, shelves=[[("?5", "+9", "+3")], [("?5", "+9")],
                                        [shelf("?5", "+6", tokens=(GOLD,))]])
    assert [p.total for p in score_table(st)] == [12, 9, 12]
    assert winners(st) == ("ana", "cal")
    st0 = make_state(players=2, shelves=[[("?5",)], [("?5",)]])
    assert winners(st0) == ("ana", "bea")


def test_r13_a_finished_game_has_a_score_table():
    st = example4_position()
    after, _ = apply_move(st, play(st, 1, "bea"))
    final, _ = apply_move(after, red(after, "cal", 1))
    table = score_table(final)
    assert table[2].shelves[0].tokens == 1 and table[2].shelves[0].multiplier == 2
    assert winners(final)


# ------------------------------------------------------------------------ turn and seat checks


def test_not_your_turn():
    st = make_state(hands=[(4,), (5,)])
    rejected(st, play(st, 5, "bea", player="bea"), "not_your_turn", f"turn {st.turn}",
             "ana's", "not bea's")


def test_stale_turn():
    st = make_state(hands=[(4,)], turn=7)
    rejected(st, play(st, 4, "ana", turn=6), "stale_turn", "turn 6", "already", "current turn is 7",
             "ana to move")
    rejected(st, play(st, 4, "ana", turn=0), "stale_turn")


def test_future_turn():
    st = make_state(hands=[(4,)], turn=7)
    rejected(st, play(st, 4, "ana", turn=8), "future_turn", "turn 8", "not begun",
             "current turn is 7")


def test_game_over():
    st = make_state(hands=[(4,)], phase=FINISHED, to_move=None)
    rejected(st, play(st, 4, "ana", player="ana"), "game_over")


def test_unknown_player():
    st = make_state(hands=[(4,)])
    err = rejected(st, play(st, 4, "ana", player="zed"), "unknown_player", "zed", "ana, bea, cal")
    assert "did you mean" not in err.message


def test_a_name_that_differs_from_a_player_only_in_case_is_pointed_to_that_player():
    st = make_state(hands=[(4,)])
    rejected(st, play(st, 4, "ana", player="Ana"), "unknown_player",
             "there is no player 'Ana' in this game (players: ana, bea, cal; did you mean 'ana'?)")
    rejected(st, play(st, 4, "BEA"), "unknown_player", "play.shelf names player 'BEA'",
             "did you mean 'bea'?")


def test_turn_checks_come_before_the_rules_of_the_play():
    """A stale move is stale whatever it plays; a move out of turn is out of turn even when
    illegal."""
    st = make_state(hands=[(4,), (5,)])
    rejected(st, play(st, 9, "zed", turn=st.turn - 1), "stale_turn")
    rejected(st, play(st, 9, "zed", player="bea"), "not_your_turn")


def test_a_rejected_move_changes_nothing():
    st = make_state(hands=[(4,)])
    before = (st.hands, st.shelves, st.deck_pos, st.supply, st.reserves, st.turn)
    rejected(st, play(st, 9, "ana"), "card_not_in_hand")
    assert (st.hands, st.shelves, st.deck_pos, st.supply, st.reserves, st.turn) == before
