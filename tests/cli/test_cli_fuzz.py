"""Fuzzing `rebis-pbm apply` (issue 4): random bytes, mutated move documents and mutated move
text. Whatever arrives: no traceback, exit 0, 1 or 2 only, one sentence on stderr when refused,
and on refusal the game's folder (record, secret, views, lock file) is byte-identical.

Runs in-process (click's CliRunner) for speed; reproducible (derandomized).
"""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clitools import apply_all, move_doc, new_game, restore, run_inproc, snapshot
from mutations import WORDS, mutate
from rebis_pbm.engine import Ruleset, apply_move, legal_moves, setup

GAME_ID = "fuzz"
PLAYERS = ("alice", "bob", "carol")
SEED = "fuzzing"
PLAYED = 4   # moves already in the record, so that stale and duplicate moves exist


def _position():
    state, _ = setup(Ruleset(), PLAYERS, SEED)
    played = []
    for n in range(PLAYED):
        move = legal_moves(state)[(n * 5) % len(legal_moves(state))]
        played.append(move)
        state, _ = apply_move(state, move)
    return state, played


STATE, PLAYED_MOVES = _position()
# Seeds of the mutations: every legal move now, the moves already recorded, and a red-token move.
DOCS = ([move_doc(m, GAME_ID) for m in legal_moves(STATE)][::3]
        + [move_doc(m, GAME_ID) for m in PLAYED_MOVES]
        + [{"game": GAME_ID, "turn": STATE.turn, "player": STATE.player_to_move,
            "red_token": {"player": "bob", "shelf": 1}}])


@st.composite
def mutated_documents(draw) -> bytes:
    doc = mutate(draw, draw(st.sampled_from(DOCS)))
    style = draw(st.sampled_from(["block", "flow", "json"]))
    if style == "json":
        return json.dumps(doc).encode()
    return yaml.safe_dump(doc, default_flow_style=(style == "flow"), allow_unicode=True).encode()


@st.composite
def mutated_text(draw) -> bytes:
    text = yaml.safe_dump(draw(st.sampled_from(DOCS)), sort_keys=False).encode()
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        pos = draw(st.integers(min_value=0, max_value=len(text)))
        action = draw(st.sampled_from(["insert", "delete", "replace"]))
        chunk = draw(st.one_of(st.binary(min_size=1, max_size=4),
                               st.sampled_from([w.encode() for w in WORDS if w]),
                               st.sampled_from([b"\r\n", b": ", b"- ", b"  ", b"\xef\xbb\xbf",
                                                b"\xff", b"#", b"'", b'"'])))
        if action == "insert":
            text = text[:pos] + chunk + text[pos:]
        elif action == "delete":
            text = text[:pos] + text[pos + len(chunk):]
        else:
            text = text[:pos] + chunk + text[pos + len(chunk):]
    return text


@pytest.fixture(scope="module")
def arena(tmp_path_factory):
    """A game in progress built through the CLI, and its snapshot to restore after each try."""
    base = tmp_path_factory.mktemp("fuzz")
    game = new_game(base / "game", PLAYERS, SEED, "--game-id", GAME_ID)
    apply_all(game, [move_doc(m, GAME_ID) for m in PLAYED_MOVES], base / "played")
    return game, snapshot(game.parent), base / "move.yaml"


def check_apply(arena, data: bytes, via_stdin: bool) -> None:
    game, before, move_path = arena
    if via_stdin:
        outcome = run_inproc("apply", game, "-", stdin=data)
    else:
        move_path.write_bytes(data)
        outcome = run_inproc("apply", game, move_path)
    try:
        assert outcome.code in (0, 1, 2), (outcome.code, outcome.err, data)
        assert "Traceback" not in outcome.out + outcome.err
        if outcome.code == 0:
            assert outcome.err == ""
            if "already applied" in outcome.out:
                assert snapshot(game.parent) == before
            else:
                assert outcome.out.startswith(f"Turn {STATE.turn}: "), outcome.out
                assert snapshot(game.parent) != before
        else:
            outcome.one_error_line()
            assert outcome.out == ""
            assert snapshot(game.parent) == before, data
    finally:
        restore(game.parent, before)


FUZZ = settings(max_examples=150, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(data=st.binary(max_size=400), via_stdin=st.booleans())
def test_random_bytes(arena, data, via_stdin):
    check_apply(arena, data, via_stdin)


@FUZZ
@given(data=mutated_documents(), via_stdin=st.booleans())
def test_mutated_move_documents(arena, data, via_stdin):
    check_apply(arena, data, via_stdin)


@FUZZ
@given(data=mutated_text(), via_stdin=st.booleans())
def test_mutated_move_text(arena, data, via_stdin):
    check_apply(arena, data, via_stdin)


def test_the_unmutated_documents_cover_every_outcome(arena):
    """The seeds of the mutations reach all three outcomes: applied, already applied, refused."""
    game, before, move_path = arena
    seen = set()
    for doc in DOCS:
        move_path.write_text(json.dumps(doc))
        outcome = run_inproc("apply", game, move_path)
        seen.add("already" if "already applied" in outcome.out else outcome.code)
        restore(game.parent, before)
    assert seen >= {0, 1, "already"}
