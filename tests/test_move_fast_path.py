"""schemas.validate: a plain move file is checked without jsonschema (schemas.plain_move), and
plain_move accepts only documents that the move schema accepts."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from rebis_pbm.schemas import load_schema, plain_move, validate
from rebis_pbm.yamlio import InputError, load_yaml

REPO = Path(__file__).resolve().parent.parent
SCHEMA = Draft202012Validator(load_schema("move"))

BASES = [
    {"game": "g1", "turn": 3, "player": "ann", "play": {"cards": 7, "shelf": "ann"}},
    {"game": "g1", "turn": 3, "player": "ann", "golden_dust": 2,
     "play": {"cards": [5, 5], "shelf": "ann", "sign": "positive"}},
    {"game": "g1", "turn": 3, "player": "ann",
     "play": {"cards": 9, "shelf": "bo", "sign": "negative"},
     "gold_token": {"player": "bo", "shelf": 2}},
    {"game": "g1", "turn": 40, "player": "cy", "red_token": {"player": "ann", "shelf": 1}},
]

# Values around every bound and type of the schema, put in place of each value of each base.
VALUES = [0, 1, -1, 2, 98, 99, 100, 998, 999, 1000, 100000, 100001, True, False, None, 1.0, 7.5,
          "1", "", "ann", "a" * 32, "a" * 33, "1ann", "ann\n", "an n", "a.b", "g" * 64, "g" * 65,
          "positive", "negative", "+", [], [1], [5, 5], [1, 2], [1, 2, 3], ["5", 5], [True, 5],
          {}, {"player": "ann", "shelf": 1}, {"player": "ann"}, {"cards": 1, "shelf": "ann"}]


def paths(doc, prefix=()):
    """Every path to a value in ``doc`` (keys and list indexes)."""
    items = doc.items() if isinstance(doc, dict) else enumerate(doc)
    for key, value in items:
        yield prefix + (key,)
        if isinstance(value, (dict, list)):
            yield from paths(value, prefix + (key,))


def edited(doc, path, value=None, delete=False):
    doc = copy.deepcopy(doc)
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return doc


def variants():
    for base in BASES:
        yield base
        for path in paths(base):
            yield edited(base, path, delete=True)
            for value in VALUES:
                yield edited(base, path, value)
            if isinstance(base_value := _at(base, path), dict):
                yield edited(base, path, {**base_value, "extra": 1})
        for key in ("golden_dust", "play", "gold_token", "red_token", "sign", "extra"):
            for value in VALUES:
                yield {**base, key: value}


def _at(doc, path):
    for key in path:
        doc = doc[key]
    return doc


def test_plain_move_accepts_only_what_the_schema_accepts():
    accepted = rejected_by_both = 0
    for doc in variants():
        if plain_move(doc):
            assert SCHEMA.is_valid(doc), json.dumps(doc)
            accepted += 1
        elif not SCHEMA.is_valid(doc):
            rejected_by_both += 1
    # Both answers occur, so the comparison above is not vacuous.
    assert accepted > 100 and rejected_by_both > 500


@pytest.mark.parametrize("path", sorted((REPO / "examples" / "moves").glob("*.yaml")))
def test_every_example_move_takes_the_plain_path(path: Path):
    loaded = load_yaml(path.read_bytes(), source=path.name, kind="move")
    assert plain_move(loaded.data)


def test_the_plain_path_still_refuses_an_octal_turn():
    """Integer spelling is checked on both paths (010 is octal 8 in YAML 1.1)."""
    loaded = load_yaml(b"game: g1\nturn: 010\nplayer: ann\nplay: {cards: 7, shelf: ann}\n",
                       source="move.yaml", kind="move")
    assert plain_move(loaded.data)
    with pytest.raises(InputError, match="octal"):
        validate(loaded, "move")


def test_applying_a_plain_move_does_not_import_jsonschema(tmp_path: Path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO),
                                                                    os.environ.get("PYTHONPATH")])))
    run = [sys.executable, "-m", "rebis_pbm"]
    subprocess.run([*run, "new", "game.yaml", "--player", "ann", "--player", "bo", "--seed", "s"],
                   cwd=tmp_path, env=env, check=True, capture_output=True, timeout=120)
    move = subprocess.run([*run, "bot", "game.yaml", "--player", "ann", "--seed", "1"],
                          cwd=tmp_path, env=env, check=True, capture_output=True, text=True,
                          timeout=120).stdout
    (tmp_path / "move.yaml").write_text(move)
    code = ("import sys; from rebis_pbm.cli import main; sys.argv = ['rebis-pbm', 'apply', "
            "'game.yaml', 'move.yaml']\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('jsonschema' in sys.modules, file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, env=env, timeout=120)
    assert out.stdout.startswith("Turn 1:"), out.stdout + out.stderr
    assert out.stderr.strip() == "False"
