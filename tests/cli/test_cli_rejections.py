"""Every reason the rules refuse a move, through `rebis-pbm apply` (issue 2): exit 1, one sentence
on stderr naming the move file and the reason, and not one byte changed in the game's folder
(record, secret, views, lock file).

Positions are real games: created with `new` and played with `apply` through the CLI; the ones
that need a particular situation (a full own shelf, a supply without golden dust, a Zero card in
hand) are found by playing seeded games with the engine first (tests/positions.py).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from clitools import example_game, new_game, run_inproc, snapshot, write_move
from positions import Position, closer, closes, first_legal, play, refused_with, search
from rebis_pbm.app import open_game
from rebis_pbm.engine import NEGATIVE, POSITIVE, ShelfRef, legal_moves

GAME_ID = "cli-game"


# ------------------------------------------------------------------------------- positions

def _fresh(folder: Path) -> Path:
    return new_game(folder / "game", ("alice", "bob"), "rejections", "--game-id", GAME_ID)


def _after_turn_1(folder: Path) -> Path:
    game = _fresh(folder)
    state = open_game(game)[1].state
    move = write_move(folder / "t1.yaml", {"game": GAME_ID, **first_legal(state).as_dict()})
    assert run_inproc("apply", game, move).code == 0
    return game


def _example(folder: Path, upto_turn: int | None) -> Path:
    """The bundled example: finished as shipped, or replayed through the CLI up to a turn."""
    return example_game(folder / "game", upto_turn)


def _full_own_shelf(state):
    """R7: a card in hand that would take the mover's own active shelf over the limit."""
    mover = state.player_to_move
    return next((m for c in sorted(set(state.hands[state.to_move]))
                 if (m := refused_with(state, play(state, [c], mover), "over_shelf_limit"))), None)


def _gold_due_close(state):
    """R8.1: a closing play without gold_token while the supply gives gold."""
    for m in legal_moves(state):
        if m.gold_token is not None and not m.golden_dust:
            bare = play(state, m.play.cards, m.play.owner)
            return refused_with(state, bare, "gold_token_missing")
    return None


def _dust_close_with_gold(state):
    """R8.1: a closing play that names a gold token while golden dust is left in the supply."""
    if state.supply.golden_dust == 0:
        return None
    for m in legal_moves(state):
        if not m.golden_dust and closes(state, m):
            with_gold = play(state, m.play.cards, m.play.owner,
                             gold_token=ShelfRef(state.player_to_move, 1))
            return refused_with(state, with_gold, "gold_token_not_allowed")
    return None


def _zero_in_hand(state):
    """R8.3: the mover holds a 0 (Rebis: Zero option) at turn 1."""
    if state.turn == 1 and 0 in state.hands[state.to_move]:
        return play(state, [0], state.players[1 - state.to_move], NEGATIVE)
    return None


SEARCHES: dict[str, Callable[[], Position]] = {
    "full own shelf": lambda: search(_full_own_shelf),
    "gold due": lambda: search(_gold_due_close, chooser=closer),
    "closing with dust left": lambda: search(_dust_close_with_gold, chooser=closer),
    "zero in hand": lambda: search(_zero_in_hand, new_args=("--zero",), max_turns=1),
}

BUILDERS: dict[str, Callable[[Path], Path]] = {
    "fresh": _fresh,
    "after turn 1": _after_turn_1,
    "finished": lambda folder: _example(folder, None),
    "red token": lambda folder: _example(folder, 36),
    **{name: (lambda folder, name=name: SEARCHES[name]().build(folder, GAME_ID))
       for name in SEARCHES},
}


@pytest.fixture(scope="module")
def templates(tmp_path_factory):
    """Position name -> a game folder built through the CLI once per module (copied per test)."""
    built: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in built:
            built[name] = BUILDERS[name](tmp_path_factory.mktemp(name.replace(" ", "-")))
        return built[name]
    return get


# ---------------------------------------------------------------------------------- cases
# Each case: position, then a function (state, game id) -> (move document, key words). The key
# words come from the rulings and the position, not from the message under test.

def _doc(game_id, move) -> dict:
    return {"game": game_id, **move.as_dict()}


def _missing_number(hand) -> int:
    return next(n for n in range(1, 10) if n not in hand)


def _single_number(hand) -> int | None:
    return next((n for n in sorted(set(hand)) if hand.count(n) == 1), None)


def c_not_your_turn(st, gid):
    other = st.players[1 - st.to_move]
    doc = {"game": gid, "turn": st.turn, "player": other,
           "play": {"cards": st.hands[1 - st.to_move][0], "shelf": other}}
    return doc, [f"turn {st.turn} is {st.player_to_move}'s, not {other}'s"]


def c_stale_turn(st, gid):
    alt = next(m for m in legal_moves_at_turn_1(st))
    doc = {**_doc(gid, alt), "turn": st.turn - 1}
    return doc, [f"turn {st.turn - 1} has already been played",
                 f"the current turn is {st.turn}, {st.player_to_move} to move"]


def legal_moves_at_turn_1(st):
    """Turn 1's moves for the first player that differ from what was recorded (first_legal)."""
    from rebis_pbm.engine import setup
    from rebis_pbm.engine.ruleset import Ruleset

    first, _ = setup(Ruleset(), st.players, "rejections")
    taken = first_legal(first)
    return [m for m in legal_moves(first) if m != taken]


def c_future_turn(st, gid):
    doc = _doc(gid, play(st, [st.hands[st.to_move][0]], st.player_to_move))
    doc["turn"] = st.turn + 2
    return doc, [f"turn {st.turn + 2} has not begun", f"the current turn is {st.turn}"]


def c_card_not_in_hand(st, gid):
    n = _missing_number(st.hands[st.to_move])
    return _doc(gid, play(st, [n], st.player_to_move)), [f"you have no {n} in your hand"]


def c_pair_needs_two(st, gid):
    n = _single_number(st.hands[st.to_move])
    return _doc(gid, play(st, [n, n], st.player_to_move)), [f"only one {n} in your hand",
                                                           "a pair needs two"]


def c_pair_not_equal(st, gid):
    a, b = sorted(set(st.hands[st.to_move]))[:2]
    return _doc(gid, play(st, [a, b], st.player_to_move)), ["same number", "R7",
                                                           f"{a} and {b} differ"]


def c_pair_on_other_shelf(st, gid):
    hand = st.hands[st.to_move]
    n = next((c for c in hand if hand.count(c) >= 2), hand[0])
    other = st.players[1 - st.to_move]
    return _doc(gid, play(st, [n, n], other)), ["only one card", "another player's shelf", "R8"]


def c_over_shelf_limit(st, gid):
    move = _full_own_shelf(st)
    weight = st.active_shelf(st.to_move).weight
    card = move.play.cards[0]
    return _doc(gid, move), [f"weighs {weight}", f"would make {weight + card}",
                             f"over the shelf limit of {st.ruleset.shelf_limit}",
                             "cannot close your own shelf", "R7"]


def c_negative_on_own_shelf(st, gid):
    move = play(st, [st.hands[st.to_move][0]], st.player_to_move, NEGATIVE)
    return _doc(gid, move), ["your own shelf", "sign: positive", "R7"]


def c_value_below_zero(st, gid):
    # Turn 1: the other player's shelf holds only its face-down card, value 0 (R5).
    card = max(st.hands[st.to_move])
    other = st.players[1 - st.to_move]
    return _doc(gid, play(st, [card], other, NEGATIVE)), [
        f"{other}'s active shelf (shelf 1) is worth 0", f"-{card} would make it -{card}",
        "never go below 0", "R8.2"]


def c_zero_negative(st, gid):
    return _doc(gid, _zero_in_hand(st)), ["numbered 0 has no negative value",
                                          "sign: positive", "R8.3"]


def c_gold_token_missing(st, gid):
    move = _gold_due_close(st)
    return _doc(gid, move), [f"this {move.play.cards[0]} closes {move.play.owner}'s active shelf",
                             "no golden dust left", "add gold_token", "R8.1"]


def c_gold_no_such_shelf(st, gid):
    move = _gold_due_close(st)
    owner = move.play.owner
    doc = {**_doc(gid, move), "gold_token": {"player": owner, "shelf": 99}}
    count = len(st.shelves[st.seat(owner)]) + 1   # the closing card starts a new shelf (R8.1)
    return doc, [f"gold_token names {owner}'s shelf 99", f"{owner} has shelves 1 to {count}"]


def c_gold_with_dust_left(st, gid):
    move = _dust_close_with_gold(st)
    return _doc(gid, move), ["golden dust token into your reserve", "not gold",
                             "remove gold_token", "R8.1"]


def c_gold_on_own_shelf_play(st, gid):
    me = st.player_to_move
    move = play(st, [min(st.hands[st.to_move])], me, gold_token=ShelfRef(me, 1))
    return _doc(gid, move), ["gold_token goes only with a play that closes", "remove it", "R8.1"]


def c_gold_without_closing(st, gid):
    other = st.players[1 - st.to_move]
    move = play(st, [min(st.hands[st.to_move])], other, gold_token=ShelfRef(other, 1))
    return _doc(gid, move), [f"does not close {other}'s active shelf",
                             f"limit {st.ruleset.shelf_limit}", "remove gold_token", "R8.1"]


def c_red_token_too_early(st, gid):
    doc = {"game": gid, "turn": st.turn, "player": st.player_to_move,
           "red_token": {"player": st.player_to_move, "shelf": 1}}
    return doc, ["only after the game has ended", "highest burden", "R12", "remove red_token"]


def c_red_token_expected(st, gid):
    me = st.player_to_move
    doc = {"game": gid, "turn": st.turn, "player": me,
           "play": {"cards": st.hands[st.to_move][0], "shelf": me}}
    return doc, ["you hold the red token", "red_token: {player, shelf}", "R12"]


def c_red_token_no_such_shelf(st, gid):
    me = st.player_to_move
    doc = {"game": gid, "turn": st.turn, "player": me, "red_token": {"player": me, "shelf": 50}}
    return doc, [f"red_token names {me}'s shelf 50",
                 f"{me} has shelves 1 to {len(st.shelves[st.to_move])}"]


def c_red_token_not_holder(st, gid):
    other = next(p for p in st.players if p != st.player_to_move)
    doc = {"game": gid, "turn": st.turn, "player": other,
           "red_token": {"player": other, "shelf": 1}}
    return doc, [f"turn {st.turn} is {st.player_to_move}'s, not {other}'s"]


def c_game_over(st, gid):
    doc = {"game": gid, "turn": st.turn, "player": st.players[0],
           "play": {"cards": 1, "shelf": st.players[0]}}
    return doc, ["the game is over", "no more moves"]


def c_golden_dust_reserve(st, gid):
    reserve = st.reserves[st.to_move]
    move = play(st, [st.hands[st.to_move][0]], st.player_to_move)
    doc = {**_doc(gid, move), "golden_dust": reserve + 1}
    return doc, [f"you have {reserve} golden dust", f"at most {reserve}, not {reserve + 1}", "R6"]


def c_unknown_player(st, gid):
    doc = {"game": gid, "turn": st.turn, "player": "zed", "play": {"cards": 1, "shelf": "zed"}}
    return doc, ["there is no player 'zed'", f"players: {', '.join(st.players)}"]


def c_unknown_shelf_owner(st, gid):
    move = play(st, [st.hands[st.to_move][0]], "zed")
    return _doc(gid, move), ["play.shelf names player 'zed'", "not in this game"]


CASES = {
    "not your turn": ("fresh", c_not_your_turn),
    "stale turn": ("after turn 1", c_stale_turn),
    "future turn": ("fresh", c_future_turn),
    "card not in hand": ("fresh", c_card_not_in_hand),
    "pair with one card in hand": ("fresh", c_pair_needs_two),
    "pair of different numbers": ("fresh", c_pair_not_equal),
    "pair on another's shelf": ("fresh", c_pair_on_other_shelf),
    "over the shelf limit on own shelf": ("full own shelf", c_over_shelf_limit),
    "negative on own shelf": ("fresh", c_negative_on_own_shelf),
    "value below 0": ("fresh", c_value_below_zero),
    "zero negative": ("zero in hand", c_zero_negative),
    "gold token missing": ("gold due", c_gold_token_missing),
    "gold token on a shelf not in play": ("gold due", c_gold_no_such_shelf),
    "gold token while golden dust is left": ("closing with dust left", c_gold_with_dust_left),
    "gold token with an own-shelf play": ("fresh", c_gold_on_own_shelf_play),
    "gold token without closing": ("fresh", c_gold_without_closing),
    "red token too early": ("fresh", c_red_token_too_early),
    "play when the red token is due": ("red token", c_red_token_expected),
    "red token on a shelf not in play": ("red token", c_red_token_no_such_shelf),
    "red token by another player": ("red token", c_red_token_not_holder),
    "game over": ("finished", c_game_over),
    "golden dust more than reserve": ("fresh", c_golden_dust_reserve),
    "unknown player": ("fresh", c_unknown_player),
    "unknown shelf owner": ("fresh", c_unknown_shelf_owner),
}


@pytest.mark.parametrize("case", list(CASES))
def test_rejected_move_exits_1_and_changes_nothing(cli, templates, tmp_path, case):
    position, make = CASES[case]
    folder = tmp_path / "game"
    shutil.copytree(templates(position).parent, folder)
    game = folder / "game.yaml"
    record, replay, _ = open_game(game)
    doc, words = make(replay.state, record.game)
    move = write_move(tmp_path / "move.yaml", doc)
    before = snapshot(folder)

    outcome = cli("apply", game, move)

    outcome.refused(1, words, prefix=f"rebis-pbm: {move}: move rejected: ")
    assert outcome.out == ""
    assert snapshot(folder) == before


def test_every_searched_position_is_where_it_should_be(templates):
    """The searched positions really are what their names say (guards the search itself)."""
    state = open_game(templates("gold due"))[1].state
    assert state.supply.golden_dust == 0 and state.supply.gold > 0        # R8.1 gives gold
    state = open_game(templates("closing with dust left"))[1].state
    assert state.supply.golden_dust > 0
    state = open_game(templates("zero in hand"))[1].state
    assert state.ruleset.zero and 0 in state.hands[state.to_move]
    state = open_game(templates("full own shelf"))[1].state
    own = state.active_shelf(state.to_move).weight
    assert any(own + c > state.ruleset.shelf_limit for c in state.hands[state.to_move])
    assert open_game(templates("red token"))[1].state.phase == "red_token"
    assert open_game(templates("finished"))[1].state.finished


def test_same_move_twice_is_already_applied(cli, templates, tmp_path):
    """Issue 4: a mail delivered twice. The second apply exits 0, says so, changes nothing."""
    folder = tmp_path / "game"
    shutil.copytree(templates("fresh").parent, folder)
    game = folder / "game.yaml"
    state = open_game(game)[1].state
    move = write_move(tmp_path / "move.yaml", {"game": GAME_ID, **first_legal(state).as_dict()})
    first = cli("apply", game, move)
    assert first.code == 0, first.err
    after_first = snapshot(folder)
    again = cli("apply", game, move)
    assert again.code == 0 and again.err == ""
    assert "Turn 1 by alice was already applied with exactly this move; nothing changed." \
        in again.out
    assert snapshot(folder) == after_first
    # Written differently (sign left out, flow style, CRLF) it is still the same move.
    doc = first_legal(state).as_dict()
    text = (f"game: {GAME_ID}\r\nturn: 1\r\nplayer: alice\r\n"
            f"play: {{cards: {doc['play']['cards']}, shelf: {doc['play']['shelf']}}}\r\n")
    assert doc["play"]["sign"] == POSITIVE
    again = cli("apply", game, "-", stdin=text.encode())
    assert again.code == 0 and "already applied" in again.out
    assert snapshot(folder) == after_first
    # With views going elsewhere (a CI job's scratch folder), a duplicate creates nothing there.
    fresh = tmp_path / "scratch-views"
    again = cli("apply", game, move, "--views-dir", fresh)
    assert again.code == 0 and "nothing changed" in again.out
    assert not fresh.exists() and snapshot(folder) == after_first


def test_different_move_for_a_played_turn_is_stale(cli, templates, tmp_path):
    folder = tmp_path / "game"
    shutil.copytree(templates("after turn 1").parent, folder)
    game = folder / "game.yaml"
    other = legal_moves_at_turn_1(open_game(game)[1].state)[0]
    move = write_move(tmp_path / "move.yaml", {"game": GAME_ID, **other.as_dict()})
    before = snapshot(folder)
    outcome = cli("apply", game, move)
    assert outcome.code == 1
    assert "turn 1 has already been played" in outcome.one_error_line()
    assert snapshot(folder) == before
