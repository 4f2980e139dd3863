"""Every listed move says what it does (issue 29, item 1), from the mover's information set only.

The property: over random positions (tests/infoset.py), each legal move's description, made from
the mover's view as a player's tools read it back, matches what `apply` then does in the real
game: whether it closes the shelf, the token taken and where gold goes, who draws (and whether
the deck had a card), the shelf's value and weight after, the red token's score, the game's end.
And the listing is the same for every game that agrees with what the mover has seen.
"""

from __future__ import annotations

import json
import random

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infoset import alternative, play_prefix
from rebis_pbm.engine import Ruleset, apply_move, information_set, legal_moves, score_table
from rebis_pbm.engine import events as ev
from rebis_pbm.engine.cards import HIDDEN
from rebis_pbm.formats.schemas import validate
from rebis_pbm.formats.yaml_reader import load_yaml
from rebis_pbm.present import views
from rebis_pbm.present.describe import described_listing, described_moves
from rebis_pbm.present.infoset import infoset_from_view

GAME = "described"
NAMES = ("alice", "bob", "carol", "dave")


@st.composite
def positions(draw):
    players = draw(st.integers(2, 4))
    ruleset = Ruleset(
        zero=draw(st.booleans()),
        golden_dust=draw(st.sampled_from((9, 0, 1, 2))),
        gold=draw(st.integers(0, 3)),
        red=draw(st.integers(0, 1)),
        shelf_limit=draw(st.sampled_from((13, 5, 8, 20))),
        hand_size=draw(st.integers(1, 5)),
        multiplier=draw(st.sampled_from(("additive", "doubling"))),
    )
    order = draw(st.permutations(ruleset.cards))
    length = draw(st.integers(0, 120))
    return ruleset, NAMES[:players], tuple(order), length, draw(st.integers(0, 2**32 - 1))


def from_view(replay, player):
    """The mover's information set as their YAML view gives it back (`moves --view`)."""
    text = views.render(views.build_view(GAME, replay, player), "yaml")
    loaded = load_yaml(text.encode(), source="view.yaml", kind="view")
    validate(loaded, "view")
    return infoset_from_view(loaded.data, "view.yaml").state


def what_apply_did(state, move):
    """What apply does with ``move`` in the real game, read from its events and state."""
    after, events = apply_move(state, move)
    out = {"closes": False, "token": None, "gold_on": None, "draws": [], "ends": None}
    for event in events:
        if isinstance(event, ev.TurnBegan):
            break
        if isinstance(event, ev.Closed):
            out["closes"] = True
        elif isinstance(event, ev.TokenTaken):
            out["token"] = "none" if event.kind is None else str(event.kind)
        elif isinstance(event, ev.TokenPlaced) and event.kind == "gold":
            out["gold_on"] = (event.owner, event.shelf)
        elif isinstance(event, ev.Drew):
            out["draws"].append((event.player, event.card is not None))
        elif isinstance(event, ev.GameEnded):
            out["ends"] = str(event.reason)
    return after, out


def check_matches(real, described, mover):
    for item in described:
        move_doc = item.doc
        from rebis_pbm.engine import Move
        move = Move.from_dict(move_doc)
        after, did = what_apply_did(real, move)
        said = item.effect
        text = item.description
        if move.red_token is not None:
            ref = move.red_token
            seat = real.players.index(ref.player)
            assert said.score_after == score_table(after)[seat].shelves[ref.shelf - 1].score
            assert f"score {said.score_before} -> {said.score_after}" in text
            continue
        assert said.closes == did["closes"], text
        assert ("closes it face down" in text) == did["closes"], text
        assert said.token == did["token"], text
        assert ("you take a golden dust token" in text) == (did["token"] == "golden_dust")
        assert ("you take a gold token" in text) == (did["token"] == "gold")
        gold = None if said.gold_on is None else (said.gold_on.player, said.gold_on.shelf)
        assert gold == did["gold_on"], text
        assert [(d.player, d.card) for d in said.draws] == did["draws"], text
        for player, card in did["draws"]:
            who = "you" if player == mover else player
            words = f"{who} {'draw' if who == 'you' else 'draws'} " + \
                ("a card" if card else "nothing: the deck is empty")
            assert words in text, (words, text)
        assert text.count("draw") == len(did["draws"]), text
        assert said.ends == did["ends"], text
        assert ("the game ends" in text) == (did["ends"] is not None), text
        seat = real.players.index(move.play.owner)
        shelf = after.shelves[seat][said.shelf - 1]
        if not did["closes"]:
            assert said.shelf == len(real.shelves[seat])
            assert (said.value_after, said.weight_after) == (shelf.value, shelf.weight), text
            assert f"(weight {shelf.weight} of {real.ruleset.shelf_limit})" in text, text
            if move.play.owner != mover:
                before = real.shelves[seat][-1].value
                assert f"value {before} -> {shelf.value}" in text, text
        if move.golden_dust:
            assert f"{move.golden_dust} golden dust token" in text, text


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_every_described_move_is_what_apply_then_does(example):
    ruleset, seats, order, length, rng_seed = example
    rng = random.Random(rng_seed)
    game = play_prefix(ruleset, seats, order, length, rng, stop_at_red_token=rng.random() < 0.3)
    real = game.state
    if real.finished:
        assert described_moves(GAME, real) == []
        return
    mover = real.player_to_move
    seen = from_view(game.replay(), mover)
    described = described_moves(GAME, seen)
    assert [d.doc for d in described] == \
        [{"game": GAME, **m.as_dict()} for m in legal_moves(real)]
    check_matches(real, described, mover)
    # The same words from the referee's full state and from the view, in every language.
    for lang in ("en", "fr", "pt"):
        for fmt in ("yaml", "json", "text"):
            assert described_listing(GAME, real, fmt, lang) == \
                described_listing(GAME, seen, fmt, lang)
    # ... and from another game that agrees with all the mover has seen: no hidden card leaks.
    other = alternative(game, real.to_move, rng)
    assert described_listing(GAME, other.state, "text", "fr") == \
        described_listing(GAME, real, "text", "fr")


def test_the_information_set_has_no_card_to_tell():
    """The describer works on the mover's information set: the deck it draws from is hidden."""
    from rebis_pbm.engine import setup
    state, _ = setup(Ruleset(), ("ana", "ben"), "describe")
    seen = information_set(state, 0)
    assert set(seen.order) == {HIDDEN}
    assert described_listing(GAME, state, "text") == described_listing(GAME, seen, "text")


def test_the_listing_formats_carry_the_description():
    from rebis_pbm.engine import setup
    state, _ = setup(Ruleset(), ("ana", "ben"), "describe formats")
    as_yaml = described_listing(GAME, state, "yaml")
    as_json = json.loads(described_listing(GAME, state, "json"))
    as_text = described_listing(GAME, state, "text").splitlines()
    docs = list(yaml.safe_load_all(as_yaml))
    assert docs == [entry["move"] for entry in as_json]
    comments = [line[2:] for line in as_yaml.splitlines() if line.startswith("# ")]
    assert comments == [entry["description"] for entry in as_json]
    assert as_text == [f"{n}. {entry['description']}" for n, entry in enumerate(as_json, 1)]
    assert as_yaml.split("---\n")[1].startswith("# ")


def test_the_examples_of_the_issue_in_three_languages():
    """A closing play, a - card and a + card on one's own shelf, as the issue words them."""
    from rebis_pbm.engine import Move, Play
    from rebis_pbm.engine.cards import Shelf, ShelfCard
    from rebis_pbm.engine.state import State
    from rebis_pbm.present.describe import effect, tell

    base, _ = __import__("rebis_pbm.engine", fromlist=["setup"]).setup(
        Ruleset(), ("ana", "ben"), "examples")
    up = (ShelfCard(5, 1, 0), ShelfCard(4, 1, 1))
    state = base._replace(hands=((3, 6, 8), base.hands[1]),
                          shelves=((Shelf((ShelfCard(3, 1, 0),)),),
                                   (Shelf(()), Shelf(up))))
    assert isinstance(state, State)
    closing = effect(state, Move(state.turn, "ana", play=Play((6,), "ben", "positive")))
    assert tell(closing, "ana", 13) == ("6 on ben's shelf 2: closes it face down; you take a "
                                        "golden dust token; ben draws a card")
    minus = effect(state, Move(state.turn, "ana", play=Play((3,), "ben", "negative")))
    assert tell(minus, "ana", 13) == ("3 - on ben's shelf 2: value 9 -> 6 (weight 12 of 13); "
                                      "you draw a card")
    mine = effect(state, Move(state.turn, "ana", play=Play((8,), "ana", "positive")))
    assert tell(mine, "ana", 13) == "8 + on your shelf 1 (weight 11 of 13)"
    assert tell(closing, "ana", 13, "fr") == (
        "6 sur l'étagère 2 de ben\u00a0: la ferme face cachée\u00a0; tu prends un jeton de "
        "poussière dorée\u00a0; ben pioche une carte")
    assert tell(minus, "ana", 13, "pt") == (
        "3 - na prateleira 2 de ben: valor 9 -> 6 (peso 12 de 13); vais tirar uma carta")
    assert tell(mine, "ana", 13, "fr") == "8 + sur ton étagère 1 (poids 11 sur 13)"
    dusted = effect(state._replace(reserves=(2, 0)),
                    Move(state.turn, "ana", 2, Play((8,), "ana", "positive")))
    assert tell(dusted, "ana", 13).startswith("2 golden dust tokens from your reserve on your "
                                              "shelf 1; 8 +")
    assert tell(dusted, "ana", 13, "pt").startswith("2 fichas de pó dourado da tua reserva na "
                                                    "tua prateleira 1; 8 +")
