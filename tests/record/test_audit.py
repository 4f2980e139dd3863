"""Verification of game records (rebis_pbm.audit): every tampering is found, at the right turn.

The real recorded game is the bundled example (examples/game.yaml: 37 moves written by
`rebis-pbm apply`, finished, its seed revealed); games in progress are the same game stopped
earlier, recorded with the same domain functions `apply` uses.
"""

import copy
import hashlib
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rebis_pbm.engine import Move, Ruleset, apply_move, setup
from rebis_pbm.formats.yaml_reader import load_yaml
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.record import (
    HEADER,
    Record,
    audit,
    commitment,
    dump_record,
    entry_from_dict,
    salted,
    seed_commitment,
)
from rebis_pbm.record.digests import (
    canonical,
    chain_digest,
    header_digest,
    state_digest,
    state_document,
)

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples"
SEED = "rebis-pbm example game"
PLAYERS = ("alice", "bob", "carol")
# The example is a rebis-pbm/2 referee deal: the deck is shuffled from SEED, and the game's
# secret SALT:SEED keys its digests and seals (docs/audit.md).
SALT = load_yaml((EXAMPLE / "game.secret.yaml").read_bytes(), source="game.secret.yaml",
                 kind="secret").data["salt"]
KEY = salted(SEED, SALT)


def example_moves() -> list[Move]:
    files = sorted((EXAMPLE / "moves").glob("turn-*.yaml"))
    return [Move.from_dict(load_yaml(f.read_bytes(), source=str(f), kind="move").data)
            for f in files]


MOVES = example_moves()
FINISHED = (EXAMPLE / "game.yaml").read_text(encoding="utf-8")
# The example keeps the format it was written in (every format in FORMATS reads and verifies).
EXAMPLE_FORMAT = load_yaml(FINISHED.encode(), source="game.yaml", kind="record").data["format"]


def recorded(upto: int) -> str:
    """The example game's record after its first ``upto`` moves, as apply writes it."""
    record = Record("example", Ruleset(), PLAYERS, commitment(EXAMPLE_FORMAT, KEY),
                    format=EXAMPLE_FORMAT)
    state, _ = setup(record.ruleset, PLAYERS, SEED)
    for move in MOVES[:upto]:
        state, events = apply_move(state, move)
        record = record.with_move(move, state, KEY, events)
        if state.finished:
            record = record.revealed(KEY)
    return dump_record(record, state, KEY)


IN_PROGRESS = recorded(12)


def data_of(text: str) -> dict:
    return load_yaml(text.encode(), source="game.yaml", kind="record").data


def text_of(data: dict) -> str:
    return HEADER + dump_yaml(data)


def check(text: str, seed: str | None = None) -> audit.Report:
    finder = None if seed is None else (lambda record: (seed, "the test's seed"))
    return audit.verify(text.encode("utf-8"), "game.yaml", finder)


def failed(text: str, code: str, turn: int | None, seed: str | None = None) -> audit.Problem:
    report = check(text, seed)
    assert not report.verified, "the tampering went unnoticed"
    problem = report.problem
    assert (problem.code, problem.turn) == (code, turn), problem
    assert report.render_text().startswith("FAILED: ")
    return problem


def rechain(data: dict) -> dict:
    """What a forger without the seed can do: recompute every public digest."""
    ruleset = Ruleset.from_dict(data["ruleset"])
    data["header_sha256"] = header_digest(data["format"], data["game"], ruleset, data["players"],
                                          data["seed_sha256"], {"deal": data["deal"]})
    prev = data["header_sha256"]
    for entry in data["moves"]:
        entry.pop("chain_sha256")
        entry["chain_sha256"] = prev = chain_digest(prev, entry)
    return data


def single_card_turns(data: dict) -> list[int]:
    return [i for i, e in enumerate(data["moves"])
            if isinstance(e.get("play", {}).get("cards"), int)]


# ------------------------------------------------------------------ genuine records verify

def test_the_bundled_example_is_the_game_its_move_files_play():
    assert recorded(len(MOVES)) == FINISHED


def test_the_example_record_verifies_completely_with_its_revealed_seed():
    report = check(FINISHED)
    assert report.verified and report.complete, report.problem
    assert report.seed == "revealed in the record"
    assert report.moves == len(MOVES) == 37
    text = report.render_text()
    assert text.startswith("Verified: game example")
    final = data_of(FINISHED)["status"]
    assert final["phase"] == "finished"
    for player, score in final["scores"].items():
        assert f"{player} {score}" in text
    assert "Winner: " + " and ".join(final["winners"]) in text


def test_a_game_in_progress_verifies_without_the_seed_and_says_what_it_could_not_check():
    report = check(IN_PROGRESS)
    assert report.verified and not report.complete
    assert report.seed is None
    assert any("12 keyed state digests" in item for item in report.not_checked)
    assert any("legal" in item for item in report.not_checked)
    assert "Not checked" in report.render_text()


def test_a_game_in_progress_verifies_completely_with_the_seed():
    report = check(IN_PROGRESS, KEY)
    assert report.verified and report.complete, report.problem


@pytest.mark.parametrize("upto", [0, 1, 3, 20, 36])
def test_every_stage_of_the_example_verifies(upto):
    assert check(recorded(upto)).verified
    assert check(recorded(upto), KEY).complete


def test_entries_are_written_in_the_one_form_the_chain_covers():
    for raw in data_of(FINISHED)["moves"]:
        hashed = {k: v for k, v in raw.items() if k != "chain_sha256"}
        assert hashed == {**entry_from_dict(raw).as_dict(), "state_hmac": raw["state_hmac"]}


# ------------------------------------------------------------------ secrets

def test_the_record_carries_the_seed_only_from_the_last_move_on():
    for upto in range(len(MOVES)):
        text = recorded(upto)
        assert SEED not in text and "\nseed:" not in text, upto
    assert f"\nseed: {SEED}\n" in recorded(len(MOVES))


def test_no_plain_hash_of_any_state_is_in_the_record():
    state, _ = setup(Ruleset(), PLAYERS, SEED)
    data = data_of(FINISHED)
    for move, entry in zip(MOVES, data["moves"], strict=True):
        state, _ = apply_move(state, move)
        plain = hashlib.sha256(canonical(state_document(state))).hexdigest()
        assert plain not in FINISHED
        assert entry["state_hmac"] == state_digest(state, KEY) != plain


# ------------------------------------------------------------------ tamperings

def test_a_card_number_changed_in_one_move():
    data = data_of(FINISHED)
    index = single_card_turns(data)[5]
    card = data["moves"][index]["play"]["cards"]
    data["moves"][index]["play"]["cards"] = card % 9 + 1
    problem = failed(text_of(data), "chain_digest", index + 1)
    assert problem.player == data["moves"][index]["player"]


def test_a_card_changed_and_the_chain_recomputed_is_caught_by_the_keyed_digests():
    data = data_of(IN_PROGRESS)
    index = single_card_turns(data)[3]
    data["moves"][index]["play"]["cards"] = data["moves"][index]["play"]["cards"] % 9 + 1
    forged = text_of(rechain(data))
    assert check(forged).verified  # without the seed the forgery is consistent: the known limit
    report = check(forged, KEY)
    assert report.problem.code in ("illegal_move", "state_digest")
    assert report.problem.turn == index + 1


def test_a_move_removed():
    data = data_of(FINISHED)
    del data["moves"][10]
    problem = failed(text_of(data), "turn_order", 11)
    assert (problem.expected, problem.found) == ("turn 11", "turn 12")


def test_the_last_move_of_a_game_in_progress_removed():
    data = data_of(IN_PROGRESS)
    del data["moves"][-1]
    failed(text_of(data), "status", 11)


def test_two_moves_swapped():
    data = data_of(FINISHED)
    data["moves"][20], data["moves"][21] = data["moves"][21], data["moves"][20]
    failed(text_of(data), "turn_order", 21)


def test_two_moves_swapped_with_their_turn_numbers():
    data = data_of(FINISHED)
    moves = data["moves"]
    moves[20], moves[21] = moves[21], moves[20]
    moves[20]["turn"], moves[21]["turn"] = 21, 22
    failed(text_of(data), "seat_order", 21)


def test_a_move_appended_by_hand_after_the_end():
    data = data_of(FINISHED)
    extra = dict(copy.deepcopy(data["moves"][-2]), turn=len(MOVES) + 1)
    data["moves"].append(extra)
    failed(text_of(data), "after_end", len(MOVES) + 1)


def test_a_move_appended_by_hand_to_a_game_in_progress():
    data = data_of(IN_PROGRESS)
    turn = len(data["moves"]) + 1
    player = PLAYERS[(turn - 1) % 3]
    data["moves"].append({"turn": turn, "player": player,
                          "play": {"cards": 5, "shelf": player, "sign": "positive"},
                          "state_hmac": data["moves"][-1]["state_hmac"],
                          "chain_sha256": data["moves"][-1]["chain_sha256"]})
    data["status"]["turn"] += 1
    data["status"]["player"] = PLAYERS[turn % 3]
    failed(text_of(data), "chain_digest", turn)


def test_a_move_appended_without_digests():
    data = data_of(IN_PROGRESS)
    turn = len(data["moves"]) + 1
    player = PLAYERS[(turn - 1) % 3]
    data["moves"].append({"turn": turn, "player": player,
                          "play": {"cards": 5, "shelf": player, "sign": "positive"}})
    problem = failed(text_of(data), "schema", turn)
    assert problem.player == player


def test_the_ruleset_edited():
    data = data_of(FINISHED)
    data["ruleset"]["shelf_limit"] = 14
    failed(text_of(data), "header_digest", None)


def test_the_seat_order_edited():
    data = data_of(FINISHED)
    data["players"] = ["bob", "alice", "carol"]
    failed(text_of(data), "header_digest", None)


def test_the_seed_commitment_replaced():
    data = data_of(IN_PROGRESS)
    data["seed_sha256"] = seed_commitment("a seed the cheat likes better")
    failed(text_of(data), "header_digest", None)


def test_the_seed_commitment_replaced_and_the_chain_recomputed():
    data = data_of(FINISHED)
    data["seed_sha256"] = seed_commitment("a seed the cheat likes better")
    problem = failed(text_of(rechain(data)), "seed_mismatch", None)
    assert problem.expected.startswith(f"seed_sha256 {commitment(EXAMPLE_FORMAT, KEY)}")
    assert problem.found == f"seed_sha256 {data['seed_sha256']}"


def test_a_revealed_seed_that_does_not_match_its_commitment():
    data = data_of(FINISHED)
    data["seed"] = "a seed the cheat likes better"
    problem = failed(text_of(data), "seed_mismatch", None)
    assert problem.found == f"seed_sha256 {data['seed_sha256']}"
    assert problem.expected.startswith(f"seed_sha256 {commitment(EXAMPLE_FORMAT, data['seed'])}")


def test_a_seed_from_outside_that_does_not_match():
    failed(IN_PROGRESS, "wrong_seed", None, seed="not this game's seed")


# ------------------------------------------- expected and found: one sense for every check
# expected = what the record should hold (recomputed from the game, or given by the rules);
# found = what the file holds. A referee looking for the edited value reads "found".

def one_digit(value: str) -> str:
    """``value`` with its first decimal digit changed, as a hand edit would."""
    at = next(i for i, c in enumerate(value) if c.isdigit())
    return value[:at] + str((int(value[at]) + 1) % 10) + value[at + 1:]


def edit_header(data: dict) -> str:
    data["header_sha256"] = one_digit(data["header_sha256"])
    return data["header_sha256"]


def edit_chain(data: dict) -> str:
    data["moves"][4]["chain_sha256"] = one_digit(data["moves"][4]["chain_sha256"])
    return data["moves"][4]["chain_sha256"]


def edit_state(data: dict) -> str:
    data["moves"][4]["state_hmac"] = one_digit(data["moves"][4]["state_hmac"])
    rechain(data)  # the forger's recomputation, so that the keyed digest is what fails
    return data["moves"][4]["state_hmac"]


def edit_commitment(data: dict) -> str:
    data["seed_sha256"] = one_digit(data["seed_sha256"])
    rechain(data)
    return data["seed_sha256"]


def edit_score(data: dict) -> str:
    data["status"]["scores"]["bob"] = int(one_digit(str(data["status"]["scores"]["bob"])))
    return str(data["status"]["scores"]["bob"])


def edit_turn(data: dict) -> str:
    data["status"]["turn"] = int(one_digit(str(data["status"]["turn"])))
    return str(data["status"]["turn"])


@pytest.mark.parametrize("base, edit, code, turn, seed", [
    (FINISHED, edit_header, "header_digest", None, None),
    (FINISHED, edit_chain, "chain_digest", 5, None),
    (FINISHED, edit_state, "state_digest", 5, None),
    (FINISHED, edit_commitment, "seed_mismatch", None, None),
    (IN_PROGRESS, edit_commitment, "wrong_seed", None, KEY),
    (FINISHED, edit_score, "status", len(MOVES), None),
    (IN_PROGRESS, edit_turn, "status", 12, None),
    (IN_PROGRESS, edit_turn, "status", 12, KEY),
], ids=["header_sha256", "chain_sha256", "state_hmac", "seed_sha256", "seed_sha256-given",
        "status-score", "status-turn", "status-turn-seeded"])
def test_found_names_the_edited_value_as_the_file_holds_it(base, edit, code, turn, seed):
    data = data_of(base)
    before = copy.deepcopy(data)
    edited = edit(data)
    report = check(text_of(data), seed)
    problem = report.problem
    assert problem is not None and (problem.code, problem.turn) == (code, turn), problem
    assert edited in problem.found and edited not in (problem.expected or ""), problem
    lines = report.render_text().splitlines()
    assert lines[2] == f"  found:    {problem.found}", lines
    if code == "state_digest":  # keyed: the value the seed gives is never printed
        assert "not shown" in problem.expected
        assert before["moves"][4]["state_hmac"] not in report.render_text()
    elif code != "status":  # a digest: expected is the one recomputed from the file as it reads
        assert problem.expected.split()[1] != problem.found.split()[1]


def test_found_names_an_edited_action_digest_as_the_file_holds_it(tmp_path):
    from clitools import run_inproc

    game = tmp_path / "game.yaml"
    assert run_inproc("new", game, "--insecure-seed", "--referee-deal", "--seed", SEED,
                      "--game-id", "actions", "--player", "alice", "--player", "bob").code == 0
    assert run_inproc("replace-player", game, "--player", "bob", "--lang", "fr",
                      "--now", "2030-01-01T00:00:00Z").code == 0
    data = data_of(game.read_text(encoding="utf-8"))
    written = data["actions"][0]["chain_sha256"]
    data["actions"][0]["chain_sha256"] = one_digit(written)
    problem = check(text_of(data)).problem
    assert problem is not None and problem.code == "chain_digest", problem
    assert (problem.expected, problem.found) == (f"chain_sha256 {written}",
                                                 f"chain_sha256 {one_digit(written)}")


@pytest.mark.parametrize("field, value, shown", [
    (("scores", "bob"), 1, "status.scores.bob"),
    (("winners",), ["alice"], "status.winners"),
    (("end",), "deck_empty", "status.end"),
])
def test_the_status_edited(field, value, shown):
    data = data_of(FINISHED)
    target = data["status"]
    for key in field[:-1]:
        target = target[key]
    if field[-1] == "scores":
        value = target[field[-1]] + 1
    target[field[-1]] = value
    problem = failed(text_of(data), "status", len(MOVES))
    assert shown in problem.message


def test_the_status_of_a_game_in_progress_edited():
    data = data_of(IN_PROGRESS)
    data["status"]["player"] = "alice" if data["status"]["player"] != "alice" else "bob"
    failed(text_of(data), "status", 12)
    failed(text_of(data), "status", 12, seed=KEY)


def test_a_game_in_progress_said_finished_without_revealing_its_seed():
    data = data_of(IN_PROGRESS)
    data["status"] = {"phase": "finished", "end": "deck_empty", "scores": {}, "winners": []}
    failed(text_of(data), "not_revealed", 12)


def test_a_finished_game_with_its_seed_removed_and_its_status_set_back_to_play():
    data = data_of(FINISHED)
    del data["seed"]
    data["status"] = {"phase": "play", "turn": len(MOVES) + 1, "player": PLAYERS[len(MOVES) % 3]}
    failed(text_of(data), "not_revealed", len(MOVES))


def test_a_finished_game_with_its_seed_removed():
    data = data_of(FINISHED)
    del data["seed"]
    failed(text_of(data), "not_revealed", len(MOVES))
    failed(text_of(data), "not_revealed", len(MOVES), seed=KEY)


# ------------------------------------------------------------------ truncation

def expected_turn(text: str, cut: int) -> int | None:
    """The move a record cut after ``cut`` bytes breaks off in (None: in the header), from the
    file's layout: move N's entry starts at the N-th line beginning with '-' under 'moves:'."""
    moves = text.index("\nmoves:\n") + len("\nmoves:\n")
    starts = [m.start() for m in re.finditer(r"^-", text[moves:], re.M)]
    if cut < moves:
        return None
    return sum(1 for s in starts if moves + s < cut) or None


def cut_points(text: str) -> list[int]:
    moves = text.index("\nmoves:\n")
    entries = [m.start() for m in re.finditer(r"^- turn:", text, re.M)]
    status = text.index("\nstatus:\n")
    points = [0, 40, text.index("ruleset:") + 30, text.index("header_sha256:") + 30, moves + 3,
              moves + 8]
    for start in entries[::9]:
        points += [start, start + 1, start + 4, start + 40, start + 120, start + 200]
    points += [status + 1, status + 5, status + 20, len(text) - 8, len(text) - 2]
    return sorted(set(points))


@pytest.mark.parametrize("source", ["finished", "in progress"])
def test_the_record_truncated_mid_file(source):
    text = FINISHED if source == "finished" else IN_PROGRESS
    for cut in cut_points(text):
        report = check(text[:cut])
        assert not report.verified, f"cut at {cut} went unnoticed"
        assert report.problem.turn == expected_turn(text, cut), (cut, report.problem)


# ------------------------------------------------------------------ any edit at all

@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(position=st.integers(min_value=0, max_value=len(FINISHED.encode()) - 1),
       byte=st.integers(min_value=0, max_value=255))
def test_any_one_byte_edit_is_caught_or_changes_nothing(position, byte):
    original = FINISHED.encode()
    edited = original[:position] + bytes([byte]) + original[position + 1:]
    report = audit.verify(edited, "game.yaml")
    if report.verified:  # only an edit that leaves the same record (a comment, say) may pass
        assert load_yaml(edited, source="game.yaml", kind="record").data == data_of(FINISHED)


def test_problem_codes_are_a_closed_set_equal_to_their_words():
    """verify's problem codes (docs/audit.md) are an enum: each equals its stable word, JSON
    writes the word, and a code outside the set is a programming error."""
    import json as json_mod

    from rebis_pbm.record import CODES, Problem, ProblemCode

    assert tuple(ProblemCode) == CODES and CODES[0] == "unreadable" and CODES[-1] == "witness"
    problem = Problem("chain_digest", "edited", turn=3)
    assert problem.code is ProblemCode.CHAIN_DIGEST and problem.code == "chain_digest"
    assert json_mod.loads(json_mod.dumps(problem.as_dict()))["code"] == "chain_digest"
    with pytest.raises(ValueError):
        Problem("edited_somehow", "no such code")
