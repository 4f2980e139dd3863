"""Secrets (issue 5, docs/views.md): who reads which card, in views, messages and the record.

The property test in test_information_sets.py proves the general claim; these tests pin the
behaviour a player relies on, each in one situation built to show it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from rebis_pbm.app import open_game
from rebis_pbm.cli import cli
from rebis_pbm.engine import (
    IllegalMove,
    Move,
    Play,
    Ruleset,
    ShelfRef,
    apply_move,
    check_move,
    setup,
)
from rebis_pbm.engine import events as ev
from rebis_pbm.engine.state import deal
from rebis_pbm.formats.schemas import validate
from rebis_pbm.formats.yaml_reader import InputError, load_yaml
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.present import views
from rebis_pbm.record import (
    HEADER,
    CorruptRecord,
    Record,
    Replay,
    SealedMove,
    audit,
    dump_record,
    entry_from_dict,
    parse_record,
    replay_record,
    seal_card,
)
from rebis_pbm.record.digests import chain_digest, salted

ROOT = Path(__file__).resolve().parent.parent
RULES = Ruleset(hand_size=2, shelf_limit=5)
SEATS = ("alice", "bob")
# R5: alice's face-down 8, bob's face-down 9; hands alice 6 1, bob 2 3; alice's first draw 7 (R6);
# then the deck: 4, 5, ...
ORDER = (8, 9, 6, 2, 1, 3, 7, 4, 5, 5, 5, 5, 1, 1, 1)


def closing_turn():
    """Turn 1: alice closes bob's shelf 1 with her 6 (0 + 6 > 5, R8.1); bob draws the 4 for it and
    the 5 as his turn 2 begins."""
    state, setup_events = deal(RULES, SEATS, ORDER)
    move = Move(1, "alice", play=Play((6,), "bob"))
    after, events = apply_move(state, move)
    return Replay(after, setup_events, ((move, events),))


def texts(replay, viewer):
    return [e["text"] for e in views.build_view("g", replay, viewer)["history"]]


# --- the history: "bob drew 1 card" for others, "you drew a 7" for yourself -------------------

@pytest.mark.parametrize("cause, why", [(ev.TURN_DRAW, ""),
                                        (ev.NEGATIVE_DRAW, " for playing a - card"),
                                        (ev.CLOSED_DRAW, " because a shelf was closed")])
def test_a_draw_shows_its_card_to_the_drawer_only(cause, why):
    drew = ev.Drew("bob", 7, cause)
    assert views.describe(drew, "bob") == f"you drew a 7{why}"
    assert views.describe(drew, "alice") == f"bob drew 1 card{why}"
    assert views.describe(drew, None) == f"bob drew 1 card{why}"


def test_a_closing_card_is_shown_to_its_closer_only():
    closed = ev.Closed("alice", "bob", 1, 6, 2)
    assert "a face-down 6" in views.describe(closed, "alice")
    for reader in ("bob", "carol", None):
        sentence = views.describe(closed, reader)
        assert "a face-down card" in sentence and "6" not in sentence


def test_views_tell_each_player_their_own_draws_and_the_others_as_counts():
    replay = closing_turn()
    setup_alice, setup_bob = texts(replay, "alice")[0], texts(replay, "bob")[0]
    assert "you drew a 7" in setup_alice and "alice drew 1 card" in setup_bob
    turn1_alice = texts(replay, "alice")[1].rstrip(".").split("; ")
    turn1_bob = texts(replay, "bob")[1].rstrip(".").split("; ")
    assert "you closed bob's shelf 1 with a face-down 6, which starts shelf 2" in turn1_alice
    assert "bob drew 1 card because a shelf was closed" in turn1_alice
    assert "bob drew 1 card" in turn1_alice  # his turn 2 draw (R6)
    assert "alice closed your shelf 1 with a face-down card, which starts shelf 2" in turn1_bob
    assert "you drew a 4 because a shelf was closed" in turn1_bob and "you drew a 5" in turn1_bob
    public = " ".join(texts(replay, None))
    assert "drew a" not in public and "face-down 6" not in public
    assert views.build_view("g", replay, "bob")["you"] == {"hand": [2, 3, 4, 5], "reserve": 0,
                                                         "drawn": 5}


def test_face_down_cards_are_shown_only_to_the_player_who_laid_them():
    replay = closing_turn()
    bob_shelf_2 = {who: views.build_view("g", replay, who)["players"][1]["shelves"][1]["cards"][0]
                   for who in ("alice", "bob", None)}
    assert bob_shelf_2["alice"] == {"face": "down", "number": 6, "by": "alice"}
    assert bob_shelf_2["bob"] == bob_shelf_2[None] == {"face": "down", "by": "alice"}
    assert "[6]" in views.render(views.build_view("g", replay, "alice"), "text")
    for who in ("bob", None):
        text = views.render(views.build_view("g", replay, who), "text")
        assert "[6]" not in text and "[?]" in text


@pytest.mark.parametrize("fmt", ["yaml", "json", "text"])
def test_cards_dealt_face_down_are_hidden_from_everyone_their_owner_included(fmt):
    replay = closing_turn()
    for who in ("alice", "bob", None):
        view = views.build_view("g", replay, who)
        for player in view["players"]:
            assert player["shelves"][0]["cards"][0] == {"face": "down"}  # R5: no number, no "by"
        rendered = views.render(view, fmt)
        assert "[8]" not in rendered and "[9]" not in rendered
        # Neither 8 nor 9 is anywhere else in this game's open information: nothing may name them.
        assert not re.search(r"\b[89]\b", "".join(e["text"] for e in view["history"]))


def test_dealt_cards_stay_hidden_at_the_end_until_the_seed_is_revealed():
    record, replay, _ = open_game(ROOT / "examples" / "game.yaml")
    assert replay.state.finished
    for who in (*record.players, None):
        view = views.build_view(record.game, replay, who)
        assert "seed_revealed" not in view
        for player in view["players"]:
            assert player["shelves"][0]["cards"][0] == {"face": "down"}


def test_once_the_record_reveals_the_seed_every_face_down_card_shows():
    record, replay, _ = open_game(ROOT / "examples" / "game.yaml")
    assert record.seed is not None  # the last move's apply revealed it (docs/audit.md)
    state = replay.state
    for who in (*record.players, None):
        view = views.build_view(record.game, replay, who, revealed=True)
        assert view["seed_revealed"] is True
        for seat, player in enumerate(view["players"]):
            for shelf, shown in zip(state.shelves[seat], player["shelves"], strict=True):
                for card, shown_card in zip(shelf.cards, shown["cards"], strict=True):
                    assert shown_card["number"] == card.number
        text = views.render(view, "text")
        assert "[?]" not in text and "every card shows" in text


def test_the_views_apply_writes_reveal_face_down_cards_only_once_the_seed_is_revealed():
    """The example's views were written by the last move's apply, which revealed the seed."""
    written = (ROOT / "examples" / "game.views" / "public.txt").read_text()
    assert "[?]" not in written and "every card shows" in written


@pytest.mark.parametrize("revealed", [False, True])
def test_every_view_matches_the_view_schema(revealed):
    record, replay, _ = open_game(ROOT / "examples" / "game.yaml")
    stages = [(record.game, replay), ("g", closing_turn())]
    for game, stage in stages:
        for who in (*stage.state.players, None):
            text = views.render(views.build_view(game, stage, who, revealed=revealed), "yaml")
            validate(load_yaml(text.encode(), source="view", kind="view"), "view")


def test_the_spectator_view_has_no_hand_no_draw_and_no_move_template():
    view = views.build_view("g", closing_turn(), None)
    assert view["viewer"] == "public"
    assert "you" not in view and "move_template" not in view
    assert [p["hand"] for p in view["players"]] == [2, 4]  # counts only


# --- messages addressed to the mover ----------------------------------------------------------

def bob_to_move(bob_hand):
    """Turn 2, bob to move (R6): alice's active shelf holds her face-down 8 and a +3 (weight 3,
    value 3); the shelf limit is 9 and the supply has no golden dust, only gold (R8.1). Bob's hand
    is ``bob_hand`` (four cards) and his turn draw, a 9."""
    alice_hand = (3, 1, 1, 1)
    dealt = (c for pair in zip(alice_hand, bob_hand, strict=True) for c in pair)
    order = (8, 9, *dealt, 2, 9, 2, 2, 2)
    state, _ = deal(Ruleset(hand_size=4, shelf_limit=9, golden_dust=0), SEATS, order)
    return apply_move(state, Move(1, "alice", play=Play((3,), "alice")))[0]


@pytest.mark.parametrize("move, code", [
    (Move(2, "bob", play=Play((5,), "alice", "negative")), "value_below_zero"),  # 3 - 5 < 0
    (Move(2, "bob", play=Play((5,), "bob", "negative")), "negative_on_own_shelf"),
    (Move(2, "bob", play=Play((5, 5), "bob")), "over_shelf_limit"),  # 10 > 9
    (Move(2, "bob", play=Play((7,), "alice")), "gold_token_missing"),  # 3 + 7 > 9 closes
    (Move(2, "bob", play=Play((5,), "alice"), gold_token=ShelfRef("alice", 1)),
     "gold_token_not_allowed"),  # 3 + 5 <= 9 does not close
])
def test_a_rejection_for_a_public_reason_does_not_tell_whether_the_hand_holds_the_card(move, code):
    """A move sent in bob's name learns nothing of his hand from the reason it is rejected."""
    holding, lacking = bob_to_move((5, 5, 7, 7)), bob_to_move((4, 4, 6, 6))
    assert holding.player_to_move == lacking.player_to_move == "bob"
    assert holding.hands[1] != lacking.hands[1]
    answers = []
    for state in (holding, lacking):
        with pytest.raises(IllegalMove) as caught:
            check_move(state, move)
        answers.append((caught.value.code, caught.value.message))
    assert answers[0] == answers[1] and answers[0][0] == code


def test_a_pair_missing_from_the_hand_gets_the_same_answer_for_none_or_one():
    one, none = bob_to_move((2, 4, 6, 6)), bob_to_move((3, 4, 6, 6))
    move = Move(2, "bob", play=Play((2, 2), "bob"))
    answers = []
    for state in (one, none):
        with pytest.raises(IllegalMove) as caught:
            check_move(state, move)
        answers.append((caught.value.code, caught.value.message))
    assert answers[0] == answers[1]
    assert answers[0][0] == "card_not_in_hand" and "a pair needs two" in answers[0][1]


def test_apply_prints_an_account_with_no_hidden_card():
    replay = closing_turn()
    printed = views.account(replay.history[0][1])
    assert "alice closed bob's shelf 1 with a face-down card" in printed
    assert "bob drew 1 card because a shelf was closed" in printed
    assert not re.search(r"\b[456]\b", printed)  # the closing 6 and bob's draws 4 and 5


# --- the record: a closing play's card is sealed ----------------------------------------------

def test_a_seal_is_the_documented_hmac_of_the_card():
    text = b"rebis-pbm/sealed-card/v1\nexample\n8\n1"
    expected = hmac.new(b"rebis-pbm example game", text, hashlib.sha256).hexdigest()
    assert seal_card("rebis-pbm example game", "example", 8, 1) == expected
    assert expected in (ROOT / "docs" / "views.md").read_text()  # the docs' test vector


def test_the_example_record_keeps_every_closing_card_sealed():
    _, replay, _ = open_game(ROOT / "examples" / "game.yaml")
    text = (ROOT / "examples" / "game.yaml").read_text()
    entries = load_yaml(text.encode(), source="game.yaml", kind="record").data["moves"]
    closings = 0
    for entry, (move, events) in zip(entries, replay.history, strict=True):
        if any(isinstance(e, ev.Closed) for e in events):
            closings += 1
            assert "cards" not in entry["play"]
            assert set(entry["play"]) == {"sealed", "shelf", "sign"}
            sent = load_yaml((ROOT / "examples" / "moves" /
                              f"turn-{move.turn:03d}-{move.player}.yaml").read_bytes(),
                             source="move", kind="move").data
            assert move.play.cards == (sent["play"]["cards"],)  # the seal opens to the card sent
        else:
            assert "sealed" not in entry.get("play", {})
    assert closings > 0


EXAMPLE_SEED = "rebis-pbm example game"


def example_data() -> dict:
    return load_yaml((ROOT / "examples" / "game.yaml").read_bytes(), source="game.yaml",
                     kind="record").data


# The example is rebis-pbm/2: its secret SALT:SEED keys the seals (the record reveals the salt).
EXAMPLE_KEY = salted(EXAMPLE_SEED, example_data()["salt"])


def rechained(data: dict) -> bytes:
    """The record with every chain digest recomputed, as anyone without the seed can: what is
    left to catch an edit is the seed's part (seals, keyed state digests, legality)."""
    prev = data["header_sha256"]
    for entry in data["moves"]:
        entry.pop("chain_sha256")
        entry["chain_sha256"] = prev = chain_digest(prev, entry)
    return (HEADER + dump_yaml(data)).encode()


def problem_of(data: dict):
    report = audit.verify(rechained(data), "game.yaml")
    assert not report.verified
    return report.problem


def test_a_changed_seal_is_reported():
    data = example_data()
    assert "sealed" in data["moves"][7]["play"]  # turn 8: bob closes carol's shelf
    data["moves"][7]["play"]["sealed"] = "f" * 64
    problem = problem_of(data)
    assert (problem.code, problem.turn, problem.player) == ("seal", 8, "bob")
    with pytest.raises(CorruptRecord, match=r"turn 8 \(bob\): the sealed card .* opens to no card"):
        replay_record(parse_record(rechained(data), "game.yaml"), EXAMPLE_KEY)


def test_a_closing_card_in_the_clear_is_reported():
    data = example_data()
    play = data["moves"][7]["play"]
    data["moves"][7]["play"] = {"cards": 1, "shelf": play["shelf"], "sign": play["sign"]}
    problem = problem_of(data)  # the state is the game's: only the sealing is wrong
    assert (problem.code, problem.turn, problem.player) == ("sealing", 8, "bob")
    assert "closes a shelf but the record shows its card" in problem.message


def test_a_sealed_play_that_does_not_close_is_reported():
    data = example_data()
    first = data["moves"][0]  # turn 1: alice plays on her own shelf
    assert "cards" in first["play"]
    card = first["play"].pop("cards")
    first["play"] = {"sealed": seal_card(EXAMPLE_KEY, "example", 1, card), **first["play"]}
    problem = problem_of(data)
    assert (problem.code, problem.turn) == ("sealing", 1)
    assert "sealed but does not close" in problem.message


def test_the_record_schema_takes_a_sealed_play_and_nothing_beside_it():
    data = example_data()
    parse_record(rechained(data), "game.yaml")  # valid as written
    data["moves"][7]["play"]["cards"] = 1
    with pytest.raises(InputError):
        parse_record(rechained(data), "game.yaml")


def test_a_sealed_entry_round_trips():
    sealed = SealedMove(8, "bob", 1, "carol", "negative", ShelfRef("alice", 2), "ab" * 32)
    assert entry_from_dict(sealed.as_dict()) == sealed
    assert sealed.with_card(4) == Move(8, "bob", 1, Play((4,), "carol", "negative"),
                                       ShelfRef("alice", 2))


def test_a_resent_closing_play_is_compared_without_its_card():
    record = Record("g", RULES, SEATS, "0" * 64, format="rebis-pbm/1")
    replay = closing_turn()
    move, events = replay.history[0]
    record = record.with_move(move, replay.state, "seed", events)
    assert isinstance(record.moves[0], SealedMove)
    other_card = Move(1, "alice", play=Play((7,), "bob"))
    assert record.holds(move) and record.holds(other_card)
    assert not record.holds(Move(1, "alice", play=Play((6,), "alice")))
    assert not record.holds(Move(1, "alice", golden_dust=1, play=Play((6,), "bob")))
    assert "cards" not in dump_record(record, replay.state).split("moves:")[1]


# --- through the command line -----------------------------------------------------------------

def rebis_pbm() -> tuple[list[str], dict]:
    """The installed console script (next to this Python, or on PATH); else the module, run from
    this source tree."""
    script = Path(sys.executable).with_name("rebis-pbm")
    found = str(script) if script.exists() else shutil.which("rebis-pbm")
    env = dict(os.environ)
    env.pop("REBIS_PBM_SEED", None)
    if found:
        return [found], env
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return [sys.executable, "-m", "rebis_pbm.cli"], env


def run(*args, cwd):
    command, env = rebis_pbm()
    return subprocess.run([*command, *args], cwd=cwd, env=env, capture_output=True, text=True)


SEED = "secrecy"


@pytest.fixture
def closing_game(tmp_path):
    """A new game (shelf limit 3) where alice's first move closes bob's shelf with a card that bob
    does not hold: returns (folder, the move's file, its card, another number that would close)."""
    done = run("new", "game.yaml", "--player", "alice", "--player", "bob", "--insecure-seed",
               "--referee-deal", "--seed", SEED, "--game-id", "g", "--rule", "shelf_limit=3",
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    state, _ = setup(Ruleset(shelf_limit=3), SEATS, SEED)
    alice, bob = state.hands
    card = next(c for c in alice if c > 3 and c not in bob)  # closes: 0 + card > 3 (R8.1)
    other = next(c for c in range(4, 10) if c != card)
    move = tmp_path / "move.yaml"
    move.write_text(dump_yaml({"game": "g", "turn": 1, "player": "alice",
                               "play": {"cards": card, "shelf": "bob", "sign": "positive"}}))
    return tmp_path, move, card, other


def test_apply_of_a_closing_play_shows_its_card_to_the_closer_alone(closing_game):
    folder, move, card, _ = closing_game
    done = run("apply", "game.yaml", str(move), cwd=folder)
    assert done.returncode == 0, done.stderr
    assert "alice closed bob's shelf 1 with a face-down card" in done.stdout
    assert f"face-down {card}" not in done.stdout
    record = (folder / "game.yaml").read_text()
    assert "sealed:" in record and not re.search(r"cards: ", record)
    assert f"[{card}]" in (folder / "game.views" / "alice.txt").read_text()
    for name in ("bob.txt", "public.txt"):
        assert f"[{card}]" not in (folder / "game.views" / name).read_text()
    for who in ("--player=bob", "--public"):
        shown = run("view", "game.yaml", who, "--format", "json", cwd=folder)
        shelf_2 = json.loads(shown.stdout)["players"][1]["shelves"][1]
        assert shelf_2["cards"] == [{"face": "down", "by": "alice"}]


def test_resending_a_closing_play_with_another_card_gets_the_same_answer(closing_game):
    folder, move, card, other = closing_game
    assert run("apply", "game.yaml", str(move), cwd=folder).returncode == 0
    record = (folder / "game.yaml").read_bytes()
    same = run("apply", "game.yaml", str(move), cwd=folder)
    guess = folder / "guess.yaml"
    guess.write_text(move.read_text().replace(f"cards: {card}", f"cards: {other}"))
    probe = run("apply", "game.yaml", str(guess), cwd=folder)
    assert (same.returncode, same.stdout, same.stderr) == (probe.returncode, probe.stdout,
                                                          probe.stderr)
    assert same.returncode == 0
    assert same.stdout == ("Turn 1 by alice was already applied: a closing play on bob's shelf, "
                           "like this one (its card is sealed in the record, so the card sent is "
                           "not compared); nothing changed.\n")
    assert (folder / "game.yaml").read_bytes() == record


def test_moves_is_refused_to_a_player_whose_turn_it_is_not(closing_game):
    folder, *_ = closing_game
    done = run("moves", "game.yaml", "--player", "bob", cwd=folder)
    assert done.returncode == 1
    assert "bob has no move to make: turn 1 is alice's" in done.stderr


def test_a_move_in_anothers_name_is_rejected_for_its_public_reason(closing_game, monkeypatch):
    """Through click: whether alice holds the card or not, a move in her name that breaks a public
    rule gets that rule as its answer; so whoever sent it learns nothing of her hand."""
    folder, _, card, _ = closing_game
    monkeypatch.chdir(folder)
    monkeypatch.delenv("REBIS_PBM_SEED", raising=False)
    state, _ = setup(Ruleset(shelf_limit=3), SEATS, SEED)
    missing = next(c for c in range(1, 10) if c not in state.hands[0])
    forged = folder / "forged.yaml"
    forged.write_text(dump_yaml({"game": "g", "turn": 1, "player": "alice",
                                 "play": {"cards": missing, "shelf": "alice",
                                          "sign": "negative"}}))
    result = CliRunner().invoke(cli, ["apply", "game.yaml", str(forged)])
    held = forged.read_text().replace(f"cards: {missing}", f"cards: {card}")
    forged.write_text(held)
    again = CliRunner().invoke(cli, ["apply", "game.yaml", str(forged)])
    assert result.exit_code == again.exit_code == 1
    assert result.output == again.output
    assert "played with a + sign" in result.output


# --- an edited move is no oracle on a hand while the seed is secret --------------------------

def _played_game(folder: Path) -> tuple[Path, list]:
    """A referee-dealt game of two players, 12 moves played through the application layer;
    returns its record and the state before each move."""
    from rebis_pbm import app as referee
    from rebis_pbm.engine import legal_moves

    path = folder / "g.yaml"
    referee.create_game(path, ["ana", "bob"], seed="oracle", insecure_seed=True, game_id="oracle")
    before = []
    for _ in range(12):
        state = open_game(path)[1].state
        before.append(state)
        move = legal_moves(state)[0]
        referee.submit_move(path, dump_yaml({"game": "oracle", **move.as_dict()}).encode(),
                            "move.yaml")
    return path, before


def test_an_edited_move_tells_nothing_of_a_hand_while_the_seed_is_secret(tmp_path):
    """The attack (newcomer report, sixth session): whoever can change the record (an approved
    pull request, a CI job's main) rewrites a past one-card play with another card and
    recomputes the public chain digests. The seed-holding command's report said either "you
    have no 4 in your hand" or "the state differs": whether the player held 4, one guess a
    report. While the seed is secret both read alike; once revealed, the rules' reason shows."""
    path, before = _played_game(tmp_path)
    original = path.read_bytes()
    data = yaml.safe_load(original)
    turn = next(i for i, entry in enumerate(data["moves"]) if i >= 2
                and isinstance(entry.get("play", {}).get("cards"), int))
    seat = before[turn].to_move
    hand = set(before[turn].hands[seat])
    played = data["moves"][turn]["play"]["cards"]
    reports, held = {}, {}
    for card in range(1, 10):
        if card == played:
            continue
        doc = yaml.safe_load(original)
        doc["moves"][turn]["play"]["cards"] = card
        path.write_bytes(rechained(doc))
        with pytest.raises(CorruptRecord) as caught:
            open_game(path)
        result = CliRunner().invoke(cli, ["verify", str(path), "--format", "json"])
        assert result.exit_code == 3, result.output
        problem = json.loads(result.output)["problem"]
        reports[card] = (str(caught.value), json.dumps(problem, sort_keys=True))
        held[card] = card in hand
    assert set(held.values()) == {True, False}  # both kinds of guess were tried
    assert len(set(reports.values())) == 1, reports
    assert "in your hand" not in reports[1][0] and "breaks the rules" not in reports[1][0]
    assert json.loads(reports[1][1])["code"] == "state_digest"
    # Once the seed is revealed, nothing is secret any more: the report gives the rules' reason.
    path.write_bytes(original)
    assert CliRunner().invoke(cli, ["reveal", str(path), "--yes"]).exit_code == 0
    missing = next(card for card in range(1, 10) if card not in hand)
    doc = yaml.safe_load(path.read_bytes())
    doc["moves"][turn]["play"]["cards"] = missing
    path.write_bytes(rechained(doc))
    problem = audit.verify(path.read_bytes(), "g.yaml").problem
    assert problem.code == "illegal_move" and f"you have no {missing} in your hand" in \
        problem.message


def test_an_unsealed_closing_play_tells_nothing_of_its_face_down_card(tmp_path):
    """The attack (a second attacker's report): a closing play's card lies face down, sealed in
    the record (R8.1). Rewritten in the clear with card C and the chain recomputed, it replayed to
    the recorded state only when C was the real card, and the report then said "sealing"
    instead of "state": the face-down card in at most nine tries. While the seed is secret,
    every C now reads alike."""
    from rebis_pbm import app as referee
    from rebis_pbm.engine import legal_moves

    path = tmp_path / "g.yaml"
    referee.create_game(path, ["ana", "bob"], seed="unseal", insecure_seed=True, game_id="unseal")
    sealed_at = None
    for _ in range(80):  # until a play closes a shelf, preferring plays on the other's shelf
        state = open_game(path)[1].state
        options = legal_moves(state)
        other = [m for m in options if m.play is not None and m.play.owner != m.player]
        move = (other or list(options))[-1]
        referee.submit_move(path, dump_yaml({"game": "unseal", **move.as_dict()}).encode(),
                            "move.yaml")
        entries = yaml.safe_load(path.read_bytes())["moves"]
        sealed_at = next((i for i, e in enumerate(entries) if "sealed" in e.get("play", {})),
                         None)
        if sealed_at is not None:
            break
    assert sealed_at is not None, "no play closed a shelf"
    original = path.read_bytes()
    reports = set()
    for card in range(1, 10):
        doc = yaml.safe_load(original)
        play = doc["moves"][sealed_at]["play"]
        doc["moves"][sealed_at]["play"] = {"cards": card, "shelf": play["shelf"],
                                           "sign": play["sign"]}
        path.write_bytes(rechained(doc))
        result = CliRunner().invoke(cli, ["verify", str(path), "--format", "json"])
        assert result.exit_code == 3, result.output
        reports.add(json.dumps(json.loads(result.output)["problem"], sort_keys=True))
    assert len(reports) == 1, reports
    assert json.loads(reports.pop())["code"] == "state_digest"
