"""engine.information_set (what one player may know, R5/R8.1) and the LegalMoves sequence."""

from __future__ import annotations

import random

import pytest

from rebis_pbm.engine import (
    DEALT,
    HIDDEN,
    LegalMoves,
    Ruleset,
    apply_move,
    burdens,
    information_set,
    legal_moves,
    score_table,
    setup,
)
from rebis_pbm.engine.cards import Shelf, ShelfCard

NAMES = ("ann", "bo", "cy")


def played(seed: str, moves: int, players: int = 3):
    state, _ = setup(Ruleset(), NAMES[:players], seed)
    rng = random.Random(seed)
    for _ in range(moves):
        state, _ = apply_move(state, rng.choice(legal_moves(state)))
    return state


def closed_position():
    """A position where bo has closed ann's shelf (a face-down card placed by bo)."""
    for i in range(200):
        state = played(f"close{i}", 6)
        placed = [(seat, c) for seat, row in enumerate(state.shelves) for s in row
                  for c in s.cards if not c.factor and c.placed_by != DEALT]
        if placed and not state.finished:
            return state, placed[0][1].placed_by
    pytest.fail("no closed shelf found")  # pragma: no cover


def test_a_player_keeps_their_hand_and_draw_and_loses_every_other_hidden_card():
    state = played("info", 5)
    seat = state.to_move
    view = information_set(state, seat)
    assert view.hands[seat] == state.hands[seat]
    assert view.drawn == state.drawn is not None
    for other, hand in enumerate(state.hands):
        if other != seat:
            assert view.hands[other] == (HIDDEN,) * len(hand)  # the count stays public
    assert view.order == (HIDDEN,) * len(state.order)
    assert view.deck_count == state.deck_count
    for row in view.shelves:
        assert row[0].cards[0] == ShelfCard(HIDDEN, 0, DEALT)  # R5: hidden from the owner too


def test_another_players_draw_is_hidden_but_known_to_exist():
    state = played("draw", 4)
    viewer = (state.to_move + 1) % 3
    assert information_set(state, viewer).drawn == HIDDEN
    assert information_set(state, None).drawn == HIDDEN


def test_a_face_down_card_is_known_to_the_player_who_placed_it_only():
    state, _ = closed_position()
    for viewer in (None, 0, 1, 2):
        view = information_set(state, viewer)
        for row, seen_row in zip(state.shelves, view.shelves, strict=True):
            for shelf, seen in zip(row, seen_row, strict=True):
                for card, shown in zip(shelf.cards, seen.cards, strict=True):
                    if card.factor or (card.placed_by == viewer and viewer is not None):
                        assert shown == card
                    else:
                        assert shown == ShelfCard(HIDDEN, 0, card.placed_by)


def test_public_facts_are_unchanged():
    state = played("public", 9)
    for viewer in (None, 0, 1, 2):
        view = information_set(state, viewer)
        assert score_table(view) == score_table(state)
        assert burdens(view) == burdens(state)
        for name in ("players", "deck_pos", "reserves", "supply", "turn", "phase", "to_move",
                     "last_mover", "end_reason", "ruleset"):
            assert getattr(view, name) == getattr(state, name)
        assert [[(s.weight, s.value, s.tokens) for s in row] for row in view.shelves] == \
            [[(s.weight, s.value, s.tokens) for s in row] for row in state.shelves]


def test_legal_moves_are_the_same_from_the_movers_information_set():
    rng = random.Random(11)
    for i in range(30):
        state = played(f"legal{i}", rng.randrange(0, 35))
        if not state.finished:
            assert list(legal_moves(information_set(state, state.to_move))) == \
                list(legal_moves(state))


def test_unknown_seat_is_an_error():
    state = played("seat", 0)
    with pytest.raises(IndexError):
        information_set(state, 3)


def test_r5_dealt_and_hidden_are_distinct():
    """DEALT is a seat sentinel (who placed a card: nobody, R5), HIDDEN a card number (one the
    viewer may not know): neither may pass for the other."""
    assert DEALT != HIDDEN
    assert ShelfCard(HIDDEN, 0, DEALT) != ShelfCard(DEALT, 0, HIDDEN)


@pytest.mark.parametrize("seat", [DEALT, HIDDEN, -3, 3, True],
                         ids=["DEALT", "HIDDEN", "minus_3", "3", "True"])
def test_r5_no_seat_outside_the_game_sees_the_cards_dealt_face_down(seat):
    """R5: the card dealt face down at setup is hidden from everyone. DEALT (the ``placed_by``
    of that card) is no seat: asking for its information set is refused, as for every index that
    is not a seat of the game, negative ones included (they would count from the end)."""
    state = played("seat", 0)
    with pytest.raises(IndexError, match="is not a seat of this game"):
        information_set(state, seat)


def test_r5_every_real_seat_and_the_spectator_see_the_dealt_cards_hidden():
    state = played("seat", 4)
    for seat in (None, 0, 1, 2):
        for row in information_set(state, seat).shelves:
            assert row[0].cards[0] == ShelfCard(HIDDEN, 0, DEALT)


def test_shelf_weight_and_value_are_computed_from_its_cards():
    shelf = Shelf((ShelfCard(5, 0, DEALT), ShelfCard(7, 1, 0), ShelfCard(3, -1, 1)))
    assert (shelf.weight, shelf.value) == (7 + 3, 7 - 3)  # the face-down 5 counts for nothing
    grown = shelf.with_card(ShelfCard(2, 1, 0))
    assert (grown.weight, grown.value) == (12, 6)
    assert shelf == Shelf(shelf.cards) and grown != shelf  # equality by cards and tokens only


# --- LegalMoves -------------------------------------------------------------------------------

def test_legal_moves_sequence_behaves_like_the_list_of_its_moves():
    state = played("seq", 7)
    moves = legal_moves(state)
    assert isinstance(moves, LegalMoves)
    as_list = list(moves)
    assert len(moves) == len(as_list) > 3
    assert moves == as_list and moves == tuple(as_list) and as_list == moves
    assert moves != as_list[:-1]
    assert moves[0] == as_list[0] and moves[-1] == as_list[-1]
    assert moves[1:4] == as_list[1:4]
    assert as_list[2] in moves
    assert moves.index(as_list[3]) == 3
    with pytest.raises(IndexError):
        moves[len(as_list)]
    with pytest.raises(TypeError):
        hash(moves)


def test_each_golden_dust_count_repeats_every_action():
    """Order: by golden dust placed, 0 upwards, then the actions (R6 step 2)."""
    for i in range(300):
        state = played(f"dust{i}", 20)
        if not state.finished and state.reserves[state.to_move] >= 1 \
                and state.phase == "play":
            break
    else:  # pragma: no cover
        pytest.fail("no position with golden dust in the mover's reserve")
    moves = list(legal_moves(state))
    reserve = state.reserves[state.to_move]
    per = len(moves) // (reserve + 1)
    assert len(moves) == per * (reserve + 1)
    for dust in range(reserve + 1):
        block = moves[dust * per:(dust + 1) * per]
        assert {m.golden_dust for m in block} == {dust}
        assert [m.play for m in block] == [m.play for m in moves[:per]]


def test_a_finished_game_has_no_legal_move():
    state = played("end", 0)
    while not state.finished:
        state, _ = apply_move(state, legal_moves(state)[0])
    assert legal_moves(state) == [] and len(legal_moves(state)) == 0
