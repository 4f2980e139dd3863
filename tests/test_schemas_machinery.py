"""Tests for rebis_pbm.formats.schemas with small schemas of our own (the real ones live
elsewhere)."""

import json
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from clitools import clear_schema_caches
from rebis_pbm.formats import schemas
from rebis_pbm.formats.schemas import (
    SCHEMA_NAMES,
    SchemaProblem,
    load_schema,
    schema_text,
    validate,
)
from rebis_pbm.formats.yaml_reader import InputError, load_yaml

REPO = Path(__file__).resolve().parent.parent

MOVE = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["game", "turn", "play"],
    "additionalProperties": False,
    "properties": {
        "game": {"type": "string", "pattern": "^[a-z0-9-]+$",
                 "description":
                     "a game id of lower-case letters, digits and dashes, like 'spring-1'"},
        "turn": {"type": "integer", "minimum": 1, "maximum": 999},
        "player": {"type": "string"},
        "code": {"type": "string", "maxLength": 8},
        "when": {"type": "integer"},
        "email": {"type": "string", "format": "email"},
        "play": {
            "type": "object",
            "additionalProperties": False,
            "required": ["cards"],
            "properties": {
                "cards": {"type": "array", "minItems": 1, "maxItems": 3,
                          "items": {"type": "integer", "minimum": 1, "maximum": 12}},
                "sign": {"enum": ["positive", "negative"]},
                "pass": {"const": True},
            },
        },
        "target": {
            "oneOf": [
                {"type": "integer", "description": "a seat number"},
                {"type": "string", "pattern": "^[A-Z]$",
                 "description": "a player letter such as B"},
            ]
        },
    },
}

GOOD = "game: spring-1\nturn: 3\nplay:\n  cards: [4, 7]\n  sign: positive\n"


def loaded(text, source="move.yaml"):
    return load_yaml(text.encode(), source=source, kind="move")


def fail(text, schema=MOVE) -> InputError:
    with pytest.raises(InputError) as info:
        validate(loaded(text), schema)
    err = info.value
    assert isinstance(err, ValueError) and str(err).startswith("move.yaml:")
    return err


def test_valid_passes():
    assert validate(loaded(GOOD), MOVE) is None


def test_required_at_parent_position():
    err = fail("game: g\nturn: 3\nplay:\n  sign: positive\n")
    assert "'play.cards' is missing" in err.message
    assert (err.line, err.column) == (4, 3)  # the play mapping starts at its first key
    err = fail("game: g\nplay: {cards: [1]}\n")
    assert "'turn' is missing" in err.message and err.line == 1


def test_unknown_field_did_you_mean_at_key_position():
    err = fail(GOOD + "tunr: 4\n")
    assert "unknown field 'tunr'" in err.message and "did you mean 'turn'?" in err.message
    assert (err.line, err.column) == (6, 1) and err.path == ("tunr",)
    err = fail(GOOD + "zzzzzz: 1\n")
    assert "allowed here are" in err.message and "game" in err.message


def test_type_message_and_location():
    err = fail(GOOD.replace("turn: 3", "turn: three"))
    assert str(err) == "move.yaml:2:7: field turn: must be a whole number, not text ('three')"


def test_nested_path_format():
    err = fail(GOOD.replace("[4, 7]", "[4, 70]"))
    assert "field play.cards[1]:" in str(err) and "at most 12" in err.message
    assert (err.line, err.column) == (4, 14)


def test_enum_with_suggestion():
    err = fail(GOOD.replace("sign: positive", "sign: postive"))
    assert "one of positive, negative" in err.message and "did you mean 'positive'" in err.message


def test_const():
    err = fail(GOOD + "  pass: 1\n".replace("  pass", "  pass"), MOVE)
    assert "must be true" in err.message


def test_minimum_and_min_items():
    assert "at least 1" in fail(GOOD.replace("turn: 3", "turn: 0")).message
    err = fail(GOOD.replace("[4, 7]", "[]"))
    assert "at least 1 item" in err.message and "not 0" in err.message
    assert "at most 3 items" in fail(GOOD.replace("[4, 7]", "[1, 2, 3, 4]")).message


def test_pattern_uses_description():
    err = fail(GOOD.replace("spring-1", "Spring_1"))
    assert "expected form" in err.message and "lower-case letters" in err.message


def test_format_email():
    err = fail(GOOD + "email: not-an-email\n")
    assert "not a valid email" in err.message


def test_max_length():
    assert "at most 8 characters" in fail(GOOD + "code: abcdefghij\n").message


def test_one_of_lists_alternatives():
    err = fail(GOOD + "target: [1]\n")
    assert "a seat number" in err.message and "a player letter such as B" in err.message
    validate(loaded(GOOD + "target: B\n"), MOVE)
    validate(loaded(GOOD + "target: 2\n"), MOVE)


def test_bool_where_text_expected_hints_quotes():
    err = fail(GOOD + "player: no\n")
    assert "write 'no' in quotes" in err.message and "YAML reads a bare no as false" in err.message
    err = fail(GOOD + "player: On\n")
    assert "write 'On' in quotes" in err.message


def test_bool_in_enum_hints_quotes():
    schema = {"type": "object", "properties": {"answer": {"enum": ["yes", "no"]}}}
    err = fail("answer: yes\n", schema)
    assert "write 'yes' in quotes" in err.message


def test_number_where_text_expected_hints_quotes():
    err = fail(GOOD + "code: 010\n")
    assert "write '010' in quotes" in err.message


def test_leading_zero_integer_rejected_even_when_schema_passes():
    err = fail(GOOD.replace("turn: 3", "turn: 010"))
    assert "octal" in err.message and "write 10, without the leading zero" in err.message
    assert err.path == ("turn",) and err.line == 2
    err = fail(GOOD.replace("[4, 7]", "[4, 0x7]"))
    assert "0x7" in err.message and "write 7" in err.message and err.path == ("play", "cards", 1)
    err = fail(GOOD.replace("turn: 3", "turn: 1:30"))
    assert "base-60" in err.message and "90" in err.message
    # plain 0 and quoted text are fine
    validate(loaded("x: 0\ny: '010'\n"), {"type": "object"})


def test_leading_zero_not_octal_hint():
    err = fail(GOOD.replace("turn: 3", "turn: 09"))
    assert "write 9, without the leading zero" in err.message


def test_timestamp_where_number_expected():
    err = fail(GOOD + "when: 2024-05-01\n")
    assert "as a date" in err.message


def test_missing_value_hint():
    err = fail(GOOD.replace("turn: 3", "turn:"))
    assert "missing" in err.message and "whole number" in err.message and "null" not in err.message


def test_remote_ref_is_never_fetched(monkeypatch):
    def no_network(*a, **k):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    schema = {"type": "object", "properties": {"a": {"$ref": "http://example.com/other.json"}}}
    with pytest.raises(SchemaProblem) as info:
        validate(loaded("a: 1\n"), schema)
    assert "never fetched" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_local_defs_ref_works():
    schema = {"type": "object", "properties": {"a": {"$ref": "#/$defs/small"}},
              "$defs": {"small": {"type": "integer", "maximum": 5}}}
    validate(loaded("a: 1\n"), schema)
    assert "at most 5" in fail("a: 6\n", schema).message


def test_invalid_schema_is_schema_problem():
    with pytest.raises(SchemaProblem):
        validate(loaded("a: 1\n"), {"type": "nonsense"})


def test_schema_names_and_unknown_name():
    assert SCHEMA_NAMES == ("move", "record", "view")
    with pytest.raises(ValueError) as info:
        schema_text("moves")
    assert "move, record, view" in str(info.value)


def test_schema_files_are_read_from_the_schemas_folder(monkeypatch, tmp_path):
    (tmp_path / "move.schema.json").write_text(json.dumps({"type": "object", "required": ["turn"]}))
    monkeypatch.setattr(schemas, "_schema_dir", lambda: tmp_path)
    clear_schema_caches()
    try:
        assert load_schema("move")["required"] == ["turn"]
        assert "'turn' is missing" in fail("game: g\n", "move").message
        with pytest.raises(SchemaProblem, match="missing"):
            schema_text("view")
        (tmp_path / "record.schema.json").write_text("{not json")
        with pytest.raises(SchemaProblem, match="invalid JSON"):
            load_schema("record")
        # a $ref to a sibling schema file resolves locally
        schema = {"type": "object", "properties": {"m": {"$ref": "move.schema.json"}}}
        assert "'m.turn' is missing" in fail("m: {a: 1}\n", schema).message
    finally:
        monkeypatch.undo()
        clear_schema_caches()


def test_default_schema_dir_points_at_repo_schemas():
    assert Path(str(schemas._schema_dir())).resolve() == (REPO / "schemas").resolve() or \
        (Path(str(schemas._schema_dir())) / "__init__.py").exists()


def test_jsonschema_is_imported_lazily():
    code = ("import sys; import rebis_pbm.formats.schemas, rebis_pbm.formats.yaml_reader, "
            "rebis_pbm.files.atomic; print('jsonschema' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


MOVE_START = "game: g\nturn: 1\nplayer: alice\n"


@pytest.mark.parametrize("text, advised", [
    (MOVE_START.replace("alice", "no") + "play: {cards: 3, shelf: bob}\n", True),   # 'no' is a name
    (MOVE_START.replace("alice", "12") + "play: {cards: 3, shelf: bob}\n", False),  # '12' is not
    (MOVE_START + "play: {cards: 3, shelf: bob, sign: ~}\n", False),  # '~' is no sign either
    (MOVE_START + "play: {cards: 3, shelf: null}\n", True),  # a player may be named null
])
def test_quoting_is_advised_only_where_the_quoted_text_would_be_right(text, advised):
    message = fail(text, "move").message
    assert ("in quotes" in message) == advised, message
