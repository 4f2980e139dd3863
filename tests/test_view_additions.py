"""What views add during a game (issue 15, item 4; docs/views.md): the ruleset in force in one
line, a warning when this turn may be the last (R11), each player's burden (R12), who played
each card, and token counts.

The warnings are checked against the rules themselves: over whole games played by the engine, a
turn with no warning never ends the game, a ``last_turn`` warning means every legal move ends it,
and a ``last_card`` / ``last_token`` warning means some legal move may. They are computed from the
view's public fields only (the deck count and the supply).
"""

from __future__ import annotations

import random

import pytest

from rebis_pbm.engine import Ruleset, apply_move, legal_moves, setup
from rebis_pbm.engine.state import PLAY
from rebis_pbm.formats.schemas import validate
from rebis_pbm.formats.yaml_reader import load_yaml
from rebis_pbm.present import views
from rebis_pbm.record import Replay

GAME = "additions"
PLAYERS = ("ana", "bob", "cy")


def games(count: int = 12):
    """Whole games with small decks and few tokens (so both endings of R11 come up), as
    ``(ruleset, [(replay, ...)])``: a replay after every move."""
    for n in range(count):
        rng = random.Random(n)
        ruleset = Ruleset(deck={k: rng.randint(2, 4) for k in range(1, 10)},
                          golden_dust=rng.choice((0, 1, 2, 4)), gold=rng.randint(0, 2) or 1,
                          shelf_limit=rng.choice((8, 13)), hand_size=rng.randint(1, 4))
        state, events = setup(ruleset, PLAYERS, f"additions {n}")
        history: list = []
        replays = [Replay(state, events, ())]
        while state.phase != "finished":
            move = rng.choice(list(legal_moves(state)))
            state, move_events = apply_move(state, move)
            history.append((move, move_events))
            replays.append(Replay(state, events, tuple(history)))
        yield replays


def test_the_warnings_say_exactly_when_this_turn_may_end_the_game():
    seen, fulfilled = set(), set()
    for replays in games():
        for replay in replays:
            state = replay.state
            if state.phase != PLAY:
                continue
            view = views.build_view(GAME, replay, None)
            codes = {w["warning"] for w in view.get("warnings", ())}
            seen |= codes
            ends = [apply_move(state, m)[0].phase != PLAY for m in legal_moves(state)]
            if not codes:
                assert not any(ends), f"turn {state.turn} ended the game without a warning"
            elif "last_turn" in codes:
                assert all(ends), f"turn {state.turn}: a last turn that does not end the game"
            elif any(ends):  # "may": a - card, or a card that closes a shelf, ends it
                fulfilled |= codes
    assert {"last_turn", "last_card", "last_token"} <= seen, seen
    assert fulfilled >= {"last_card", "last_token"}, fulfilled


def test_a_warning_comes_from_the_public_deck_count_and_supply_alone():
    for replays in games(4):
        for replay in replays:
            for viewer in (None, *PLAYERS):
                view = views.build_view(GAME, replay, viewer)
                if view["phase"] != PLAY:
                    assert "warnings" not in view
                    continue
                supply = view["supply"]
                assert view.get("warnings", []) == views.end_warnings(
                    view["deck"], supply["golden_dust"], supply["gold"])


def test_the_text_view_shows_the_warning_the_ruleset_burdens_who_played_and_token_counts():
    for replays in games():
        last = [r for r in replays if r.state.phase == PLAY][-1]
        if last.state.deck_count == 0:
            break
    else:
        pytest.fail("no game reached a last turn with the deck empty")
    text = views.render(views.build_view(GAME, last, "ana"), "text")
    assert "Last turn: the deck is empty, so the game ends after this turn (R11)." in text
    assert text.count("Ruleset: ") == 1
    for player in views.build_view(GAME, last, "ana")["players"]:
        burden = player["burden"]
        assert f"{player['name']} (seat {player['seat']}): " in text
        assert (f"burden {burden['total']} (- cards {burden['negative']} + hand "
                f"{burden['hand']})") in text
        for shelf in player["shelves"]:
            for card in shelf["cards"]:
                if "by" in card and "sign" in card:
                    sign = "+" if card["sign"] == "positive" else "-"
                    assert f"{sign}{card['number']} ({card['by']})" in text


def test_burdens_during_the_game_match_the_end_of_game_burdens():
    for replays in games(3):
        ended = next(r for r in replays if r.state.phase != PLAY)
        view = views.build_view(GAME, ended, "bob")
        during = [{"player": p["name"], **p["burden"]} for p in view["players"]]
        assert during == view["end"]["burdens"]


def test_the_ruleset_line_names_every_parameter():
    ruleset = Ruleset(zero=True, shelf_limit=20, multiplier="doubling", golden_dust=5)
    line = views.ruleset_text(ruleset.as_dict())
    assert line == ("Ruleset: cards 1-9, 9 of each and 9 x 0 (Rebis: Zero) (90 cards); tokens 5 "
                    "golden dust, 3 gold, 1 red; shelf limit 20; hand 5; multiplier doubling "
                    "(x2 per token).")
    uneven = views.ruleset_text(Ruleset(deck={1: 2, 5: 3}, hand_size=1).as_dict())
    assert uneven.startswith("Ruleset: cards 2 x 1, 3 x 5 (5 cards);")


def test_token_counts():
    assert views.tokens_text(["golden_dust", "golden_dust", "gold"]) == "2 golden dust, 1 gold"
    assert views.tokens_text(["red", "golden_dust"]) == "1 golden dust, 1 red"
    assert views.tokens_text([]) == "no tokens"


def test_the_new_fields_match_the_view_schema():
    for replays in games(2):
        for replay in replays[::5] + replays[-2:]:
            for viewer in (None, "cy"):
                text = views.render(views.build_view(GAME, replay, viewer), "yaml")
                validate(load_yaml(text.encode(), source="view.yaml", kind="view"), "view")
