"""record.read_game: a record as rebis-pbm writes it is read without the JSON Schema, and every
record gets exactly the outcome of the schema-checked path (record.read_checked)."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rebis_pbm.engine import Ruleset, apply_move, legal_moves, setup
from rebis_pbm.record import Record, dump_record, read_checked, read_game, seed_commitment

REPO = Path(__file__).resolve().parents[2]
SEED = "fast-path"
PLAYERS = ("ann", "bo", "cy")


def record_text(moves: int) -> str:
    """A record as apply writes it (digests, seals) after ``moves`` random moves."""
    state, _ = setup(Ruleset(), PLAYERS, SEED)
    record = Record("fast", Ruleset(), PLAYERS, seed_commitment(SEED), format="rebis-pbm/1")
    rng = random.Random(1)
    for _ in range(moves):
        move = rng.choice(legal_moves(state))
        state, events = apply_move(state, move)
        record = record.with_move(move, state, SEED, events)
    return dump_record(record, state)


def outcome(read):
    """What a reader gives: (record, final state) or (exception type, message)."""
    try:
        record, replay = read()
    except Exception as exc:  # compared, not hidden: both paths must fail the same way
        return type(exc).__name__, str(exc)
    return record, replay.state


def checked_path(data: bytes):
    return read_checked(data, "game.yaml", lambda record: SEED)[:2]


def both(data: bytes):
    fast = outcome(lambda: read_game(data, "game.yaml", lambda record: SEED)[:2])
    slow = outcome(lambda: checked_path(data))
    return fast, slow


def test_a_written_record_reads_the_same_by_both_paths():
    data = record_text(12).encode()
    fast, slow = both(data)
    assert isinstance(fast[0], Record)
    assert fast == slow


# Values a hand could put in a record: each must meet the same fate on both paths.
ODD_VALUES = ("true", "'1'", "1.0", "0", "-1", "010", "'a b'", "../evil", "null", "[1]", "2",
              "negative")


def mutations(text: str):
    lines = text.splitlines(keepends=True)
    scalar = re.compile(r"^(\s*(?:- )?[a-z_0-9]+: )(\S.*)$")
    for i, line in enumerate(lines):
        m = scalar.match(line.rstrip("\n"))
        if not m:
            continue
        for value in ODD_VALUES:
            if value != m.group(2):
                yield "".join(lines[:i] + [m.group(1) + value + "\n"] + lines[i + 1:])


def test_every_hand_edited_value_meets_the_same_fate_on_both_paths():
    text = record_text(2)
    cases = list(mutations(text))
    assert len(cases) > 200
    accepted_fast = 0
    for mutated in cases:
        fast, slow = both(mutated.encode())
        assert fast == slow, mutated
        accepted_fast += isinstance(fast[0], Record)
    assert accepted_fast < len(cases) / 2  # most edits break the record


def test_a_boolean_turn_is_refused_although_it_replays():
    """``turn: true`` equals 1 in Python and replays as turn 1: only the schema refuses it."""
    text = record_text(3).replace("- turn: 1\n", "- turn: true\n", 1)
    fast, slow = both(text.encode())
    assert fast == slow
    assert fast[0] == "InputError" and "whole number" in fast[1]


def test_a_name_that_would_leave_the_views_folder_is_refused():
    text = record_text(0).replace("- ann\n", "- ../ann\n")
    assert "../ann" in text
    fast, slow = both(text.encode())
    assert fast == slow and fast[0] == "InputError"


def test_a_reformatted_record_is_still_read():
    """Comments and flow style are not how rebis-pbm writes, but they are valid YAML."""
    text = record_text(2).replace("moves:\n", "# edited by hand\nmoves:\n")
    fast, slow = both(text.encode())
    assert isinstance(fast[0], Record) and fast == slow


def test_view_of_a_written_record_does_not_import_jsonschema(tmp_path: Path):
    (tmp_path / "game.yaml").write_text(record_text(8))
    (tmp_path / "game.secret.yaml").write_text(f"game: fast\nseed: {SEED}\n")
    code = ("import sys; from rebis_pbm.cli import main; sys.argv = ['rebis-pbm', 'view', "
            "'game.yaml', '--player', 'ann']\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('jsonschema' in sys.modules, file=sys.stderr)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO),
                                                                    os.environ.get("PYTHONPATH")])))
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, env=env, timeout=120)
    assert "Your hand:" in out.stdout
    assert out.stderr.strip() == "False"


@pytest.mark.parametrize("command", [["view", "--player", "ann"], ["moves", "--player", "ann"]])
def test_a_broken_record_still_gets_the_schemas_positioned_message(tmp_path: Path, command):
    text = record_text(3).replace("- turn: 2\n", "- turn: two\n", 1)
    (tmp_path / "game.yaml").write_text(text)
    (tmp_path / "game.secret.yaml").write_text(f"game: fast\nseed: {SEED}\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO),
                                                                    os.environ.get("PYTHONPATH")])))
    out = subprocess.run([sys.executable, "-m", "rebis_pbm", command[0], "game.yaml",
                          *command[1:]], cwd=tmp_path, capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.returncode == 2
    assert re.search(r"game\.yaml:\d+:\d+: field moves\[1\]\.turn: must be a whole number",
                     out.stderr), out.stderr


def test_a_record_with_addresses_gets_the_schemas_address_check():
    """E-mail addresses (mail transport) are not covered by any digest: only their form is
    checked, by the fast path as by the schema (tests/test_speed_paths.py), with one outcome."""
    state, _ = setup(Ruleset(), PLAYERS, SEED)
    record = Record("fast", Ruleset(), PLAYERS, seed_commitment(SEED), format="rebis-pbm/1",
                    addresses={"ann": "ann@example.org"})
    text = dump_record(record, state)
    assert "ann@example.org" in text
    fast, slow = both(text.encode())
    assert isinstance(fast[0], Record) and fast == slow
    broken = text.replace("ann@example.org", "ann.example.org")
    fast, slow = both(broken.encode())
    assert fast == slow and fast[0] == "InputError" and "email" in fast[1]
