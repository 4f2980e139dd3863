"""The engine's values are immutable named tuples (rebis_pbm.engine's docstring): a changed copy
is made with ``_replace``, a shelf's weight and value follow its cards through every copy."""

from __future__ import annotations

import copy
import pickle

import pytest

from rebis_pbm.engine import (
    DEALT,
    GOLD,
    GOLDEN_DUST,
    NEGATIVE,
    RED,
    Move,
    Play,
    Ruleset,
    Shelf,
    ShelfCard,
    ShelfRef,
    apply_move,
    legal_moves,
    setup,
)


def a_shelf() -> Shelf:
    return Shelf((ShelfCard(5, 0, DEALT), ShelfCard(7, 1, 0), ShelfCard(3, -1, 1)), (GOLD,))


def test_a_shelf_weighs_its_face_up_cards_and_is_worth_their_signed_numbers():
    shelf = a_shelf()
    assert (shelf.weight, shelf.value) == (10, 4)
    assert Shelf().weight == Shelf().value == 0
    on_top = shelf.with_card(ShelfCard(2, -1, 0))
    assert (on_top.weight, on_top.value) == (12, 2)
    assert on_top == Shelf(on_top.cards, on_top.tokens)
    assert shelf.with_tokens(GOLD).tokens == (GOLD, GOLD)
    assert shelf.with_tokens(GOLD).weight == 10


@pytest.mark.parametrize("how", [copy.copy, copy.deepcopy,
                                 lambda shelf: pickle.loads(pickle.dumps(shelf))])
def test_a_copied_or_pickled_shelf_keeps_its_cards_weight_and_value(how):
    shelf = a_shelf()
    again = how(shelf)
    assert type(again) is Shelf
    assert again == shelf
    assert (again.cards, again.tokens, again.weight, again.value) == (shelf.cards, shelf.tokens,
                                                                     10, 4)


def test_values_cannot_be_changed_in_place():
    state, _ = setup(Ruleset(), ("ann", "bo"), "values")
    move = legal_moves(state)[0]
    for value, name in ((state, "turn"), (move, "turn"), (a_shelf(), "weight"),
                        (state.supply, "gold"), (ShelfRef("ann", 1), "shelf")):
        with pytest.raises(AttributeError):
            setattr(value, name, 0)


def test_a_changed_copy_is_made_with_replace_and_the_state_pickles():
    state, _ = setup(Ruleset(), ("ann", "bo"), "values")
    after, _ = apply_move(state, legal_moves(state)[0])
    assert pickle.loads(pickle.dumps(after)) == after
    moved = Move(1, "ann", play=Play((4,), "bo", NEGATIVE))
    assert moved._replace(turn=2) == Move(2, "ann", play=Play((4,), "bo", NEGATIVE))
    assert state._replace(turn=9).turn == 9 and state.turn == 1


def test_the_supply_says_how_many_tokens_of_a_kind_are_left():
    state, _ = setup(Ruleset(golden_dust=4, gold=2, red=0), ("ann", "bo"), "values")
    assert [state.supply.left(kind) for kind in (GOLDEN_DUST, GOLD, RED)] == [4, 2, 0]
