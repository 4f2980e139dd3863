"""``legal_moves``: every listed move is accepted, and the listing is complete (checked against a
brute-force enumeration of candidate moves through ``check_move``)."""

from __future__ import annotations

import pytest

from builders import make_state, shelf
from rebis_pbm.engine import (
    FINISHED,
    NEGATIVE,
    POSITIVE,
    RED_TOKEN,
    SIGNS,
    IllegalMove,
    Move,
    Play,
    Ruleset,
    ShelfRef,
    apply_move,
    check_move,
    legal_moves,
    setup,
)


def candidate_moves(state):
    """Every move worth trying in ``state``, legal or not: all card numbers of the ruleset (and one
    beyond), singles, pairs and unequal pairs, every target, both signs, golden dust from -1 to
    the reserve + 1, gold and red tokens on every shelf in play and just outside it."""
    if state.to_move is None:
        mover, name = 0, state.players[0]
    else:
        mover, name = state.to_move, state.players[state.to_move]
    turn = state.turn
    most = max(len(row) for row in state.shelves) + 1
    refs = [ShelfRef(p, k) for p in state.players for k in range(0, most + 2)]
    refs.append(ShelfRef("zed", 1))
    numbers = sorted(set(state.ruleset.cards)) + [max(state.ruleset.cards) + 1]
    plays = [(c,) for c in numbers] + [(c, c) for c in numbers]
    plays += [(a, b) for a in numbers for b in numbers if a < b][:6] + [()]
    moves = [Move(turn, name, red_token=r) for r in refs]
    moves.append(Move(turn, name))
    for dust in range(-1, state.reserves[mover] + 2):
        for cards in plays:
            for target in state.players:
                for sign in SIGNS:
                    for gold in [None, *refs]:
                        moves.append(Move(turn, name, dust, Play(cards, target, sign), gold))
    return moves


def closes(state, move):
    target = state.players.index(move.play.owner)
    weight = state.active_shelf(target).weight
    return target != state.to_move and weight + sum(move.play.cards) > state.ruleset.shelf_limit


def brute_force_legal(state):
    legal = []
    for move in candidate_moves(state):
        try:
            check_move(state, move)
        except IllegalMove:
            continue
        legal.append(move)
    return legal


def normalise(state, move):
    """A closing play is listed once, with sign positive (its sign does not matter, R8.1)."""
    if move.play is not None and move.play.sign == NEGATIVE and closes(state, move):
        return Move(move.turn, move.player, move.golden_dust,
                    Play(move.play.cards, move.play.owner, POSITIVE), move.gold_token)
    return move


def assert_listing_complete(state):
    listed = legal_moves(state)
    assert len(listed) == len(set(listed)), "no move is listed twice"
    for move in listed:
        apply_move(state, move)  # accepted as is
    found = brute_force_legal(state)
    # Each closing play is legal with both signs: the brute force finds both.
    for move in found:
        if move.play is not None and closes(state, move):
            other = NEGATIVE if move.play.sign == POSITIVE else POSITIVE
            check_move(state, Move(move.turn, move.player, move.golden_dust,
                                   Play(move.play.cards, move.play.owner, other), move.gold_token))
    assert set(listed) == {normalise(state, m) for m in found}
    return listed


POSITIONS = {
    "golden dust left, reserve 2": dict(
        hands=[(2, 3, 3, 7, 9)], reserves=(2, 0, 0),
        shelves=[[("?5", "+6")], [shelf("?4", "+6", "+5", owner=1)], [("?1", "+9"), ("?2@0",)]]),
    "gold due": dict(
        hands=[(1, 3, 5, 5, 9)], supply=(0, 2, 1), reserves=(1, 1, 0),
        shelves=[[("?5", "+4", "+4")], [("?4", "+6", "+5")], [("?1", "+9", "+3"), ("?2@0", "+1")]]),
    "no tokens left": dict(
        ruleset=Ruleset(golden_dust=0, gold=0), supply=(0, 0, 1), hands=[(4, 6, 8, 8)],
        shelves=[[("?5",)], [("?4", "+6", "+3")], [("?1", "+8")]]),
    "zero option": dict(
        ruleset=Ruleset(zero=True), hands=[(0, 0, 1, 6, 6)], reserves=(1, 0, 0),
        shelves=[[("?5", "+9", "+4")], [("?4", "+1")], [("?1", "+5", "-2@0")]]),
    "full own shelf, two players": dict(
        players=2, hands=[(1, 1, 9)], shelves=[[("?5", "+9", "+4")], [("?4",)]]),
    "four players, gold due, many shelves": dict(
        players=4, hands=[(2, 2, 7)], supply=(0, 1, 1),
        shelves=[[("?5", "+9", "+3"), ("?4@1",)], [("?4", "+6", "+2")], [("?1", "+8")],
                 [("?1", "+9", "+2"), ("?3@0", "+9"), ("?3@2", "+6", "-6@0")]]),
    "small limit custom deck": dict(
        ruleset=Ruleset(deck=((1, 5), (4, 5), (11, 3)), shelf_limit=10), hands=[(1, 4, 4, 11)],
        shelves=[[("?1", "+4")], [("?4", "+4", "+4")], [("?1",)]], deck=(1, 4)),
}


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_legal_moves_constructed_positions_are_accepted_and_complete(name):
    state = make_state(**POSITIONS[name])
    listed = assert_listing_complete(state)
    assert listed


def test_legal_moves_gold_placements_include_the_brand_new_shelf():
    state = make_state(**POSITIONS["gold due"])
    listed = legal_moves(state)
    golds = {(m.play.owner, m.gold_token) for m in listed if m.gold_token is not None}
    assert ("bea", ShelfRef("bea", 2)) in golds  # the shelf the closing play starts
    assert ("bea", ShelfRef("cal", 1)) in golds  # a closed shelf
    assert ("bea", ShelfRef("bea", 3)) not in golds


def test_legal_moves_red_token_phase():
    state = make_state(phase=RED_TOKEN, to_move=2, supply=(0, 0, 1), hands=[(1,), (2,), (3,)],
                       shelves=[[("?5",)], [("?5", "+9"), ("?1@0",)], [("?5",)]])
    listed = assert_listing_complete(state)
    assert [m.red_token for m in listed] == [ShelfRef("ana", 1), ShelfRef("bea", 1),
                                             ShelfRef("bea", 2), ShelfRef("cal", 1)]
    assert all(m.play is None and m.player == "cal" for m in listed)


def test_legal_moves_finished_game_is_empty_and_nothing_is_legal():
    state = make_state(phase=FINISHED, to_move=None, hands=[(1, 2, 2)])
    assert legal_moves(state) == []
    assert brute_force_legal(state) == []


def test_legal_moves_order_is_documented_order():
    state = make_state(**POSITIONS["golden dust left, reserve 2"])
    listed = legal_moves(state)
    dusts = [m.golden_dust for m in listed]
    assert dusts == sorted(dusts) and set(dusts) == {0, 1, 2}
    first = [m for m in listed if m.golden_dust == 0]
    own = [m for m in first if m.play.owner == "ana"]
    assert first[:len(own)] == own
    assert [m.play.cards for m in own] == [(2,), (3,), (7,), (3, 3)]  # 6 + 9 > 13
    others = [m.play.owner for m in first[len(own):]]
    assert others == sorted(others, key=("bea", "cal").index)


@pytest.mark.parametrize("seed,players,zero", [("lm-a", 2, False), ("lm-b", 3, True),
                                               ("lm-c", 4, False)])
def test_legal_moves_complete_along_real_games(seed, players, zero):
    """Walk a game choosing varied legal moves; check completeness every few turns, including the
    red-token move at the end."""
    state, _ = setup(Ruleset(zero=zero), ("ana", "bea", "cal", "dan")[:players], seed)
    step = 0
    checked = 0
    while not state.finished:
        listed = legal_moves(state)
        if step % 7 == 0 or state.phase == RED_TOKEN or state.supply.golden_dust == 0:
            assert_listing_complete(state)
            checked += 1
        state, _ = apply_move(state, listed[(step * 7919) % len(listed)])
        step += 1
    assert checked >= 5
