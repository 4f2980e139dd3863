"""The quick check of move files (fastjsonschema) and jsonschema, which decides.

`apply` accepts a valid move file with fastjsonschema's compiled check of move.schema.json, so
that it need not import jsonschema; everything the quick check refuses goes to jsonschema, which
decides and words the refusal (rebis_pbm/formats/schemas.py). What must hold:

- the quick check accepts nothing that jsonschema refuses (else a bad move would get through);
- it accepts every move the engine can make (else `apply` loses its speed for real moves);
- it never fetches a schema from the network nor writes into the document;
- `apply` of a valid move does not import jsonschema, and a refusal reads as jsonschema words it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from clitools import EXAMPLES, REPO, clear_schema_caches, move_doc, new_game, write_move
from mutations import VALUES, mutate
from rebis_pbm.engine import Ruleset, apply_move, legal_moves, setup
from rebis_pbm.formats import schemas
from rebis_pbm.formats.schemas import load_schema, quickly_accepted, validate
from rebis_pbm.formats.yaml_reader import InputError, load_yaml

MOVE = Draft202012Validator(load_schema("move"))
SETTINGS = settings(max_examples=400, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def jsonschema_accepts(doc) -> bool:
    return MOVE.is_valid(doc)


@st.composite
def engine_moves(draw) -> dict:
    """The move document of a legal move in a position reached by legal moves (2-4 players)."""
    players = ("alice", "bob", "carol", "dan")[:draw(st.integers(min_value=2, max_value=4))]
    state, _ = setup(Ruleset(zero=draw(st.booleans())), players, draw(st.text(max_size=6)))
    for _ in range(draw(st.integers(min_value=0, max_value=60))):
        if state.finished:
            break
        moves = legal_moves(state)
        index = draw(st.integers(min_value=0, max_value=len(moves) - 1))
        state, _ = apply_move(state, moves[index])
    if state.finished:
        return {"game": "g", "turn": state.turn, "player": players[0],
                "red_token": {"player": players[-1], "shelf": 1}}
    moves = legal_moves(state)
    return move_doc(moves[draw(st.integers(min_value=0, max_value=len(moves) - 1))], "g-1.x")


@SETTINGS
@given(doc=engine_moves())
def test_the_quick_check_accepts_every_move_the_engine_can_make(doc):
    assert jsonschema_accepts(doc)
    assert quickly_accepted(doc, "move")


@st.composite
def mutated_moves(draw) -> dict:
    return mutate(draw, draw(engine_moves()))


@SETTINGS
@given(doc=mutated_moves())
def test_the_quick_check_accepts_nothing_that_jsonschema_refuses(doc):
    if quickly_accepted(doc, "move"):
        assert jsonschema_accepts(doc), doc


@SETTINGS
@given(doc=mutated_moves())
def test_the_quick_check_and_jsonschema_give_the_same_verdict(doc):
    """Not needed for safety (jsonschema decides every refusal), but a difference would mean the
    two read the schema differently: the patterns' '$(?!\\n)' is there for that."""
    assert quickly_accepted(doc, "move") == jsonschema_accepts(doc), doc


@pytest.mark.parametrize("field, value", [("player", "alice\n"), ("game", "g-1\n"),
                                          ("player", "alice\n\n"), ("game", "\ng")])
def test_both_refuse_a_name_with_a_line_break(field, value):
    doc = {"game": "g-1", "turn": 1, "player": "alice", "play": {"cards": 3, "shelf": "alice"}}
    doc[field] = value
    assert not jsonschema_accepts(doc)
    assert not quickly_accepted(doc, "move")


ANY_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5) | VALUES,
                        lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(st.sampled_from(["game", "turn", "player", "play",
                                                           "cards", "shelf", "sign", "red_token",
                                                           "gold_token", "golden_dust", "x"]),
                                          inner, max_size=6),
                        max_leaves=12)


@SETTINGS
@given(doc=ANY_JSON)
def test_the_quick_check_accepts_no_arbitrary_document_that_jsonschema_refuses(doc):
    if quickly_accepted(doc, "move"):
        assert jsonschema_accepts(doc), doc


@pytest.mark.parametrize("doc", [
    {"game": "g", "turn": 1, "player": "alice"},                                   # no play
    {"game": "g", "turn": 1, "player": "alice", "play": {"cards": [3, 3, 3], "shelf": "bob"}},
    {"game": "g", "turn": True, "player": "alice", "play": {"cards": 3, "shelf": "bob"}},
    {"game": "g", "turn": 1, "player": "alice", "play": {"cards": 3, "shelf": "bob", "sign": "+"}},
    {"game": "g", "turn": 1, "player": "1alice", "play": {"cards": 3, "shelf": "bob"}},
    {"game": "g", "turn": 1, "player": "alice", "play": {"cards": 100, "shelf": "bob"}},
    {"game": "g", "turn": 0, "player": "alice", "play": {"cards": 3, "shelf": "bob"}},
    {"game": "g", "turn": 1, "player": "alice", "play": {"cards": 3, "shelf": "bob"}, "x": 1},
    {"game": "g", "turn": 1, "player": "alice", "red_token": {"player": "bob"}},
    {"game": "g", "turn": 1, "player": "alice", "golden_dust": -1,
     "play": {"cards": 3, "shelf": "bob"}},
])
def test_both_refuse_the_classic_mistakes(doc):
    assert not jsonschema_accepts(doc)
    assert not quickly_accepted(doc, "move")


def test_a_refusal_is_worded_by_jsonschema_as_before():
    loaded = load_yaml(b"game: g\nturn: 1\nplayer: alice\n"
                       b"play: {cards: 3, shelf: bob, sing: negative}\n",
                       source="m.yaml", kind="move")
    with pytest.raises(InputError) as info:
        validate(loaded, "move")
    # the key 'sing' starts at column 30 of line 4
    assert str(info.value) == "m.yaml:4:30: unknown field 'play.sing'; did you mean 'sign'?"


def test_every_example_move_file_is_quickly_accepted():
    files = sorted((EXAMPLES / "moves").glob("*.yaml"))
    assert len(files) > 10
    for path in files:
        assert quickly_accepted(load_yaml(path.read_bytes(), source=path.name, kind="move").data,
                                "move"), path.name


def test_the_records_compiled_check_agrees_with_jsonschema():
    """The record schema refers to the move schema: its compiled check has those definitions
    inlined (verify runs it on a record read as written, issue 27's third tester). It accepts
    what jsonschema accepts and refuses what jsonschema refuses (a value no command writes)."""
    import copy

    record = load_yaml((EXAMPLES / "game.yaml").read_bytes(), source="game.yaml", kind="record")
    assert schemas._quick_check("record") is not None
    assert quickly_accepted(record.data, "record")
    validate(record, "record")
    bad = copy.deepcopy(record.data)
    bad["moves"][0]["turn"] = -1
    assert not quickly_accepted(bad, "record")
    with pytest.raises(InputError):
        validate(record._replace(data=bad), "record")


@pytest.fixture
def schema_dir(monkeypatch, tmp_path):
    """Serve the shipped schemas from ``tmp_path`` (copy them there first), caches emptied."""
    for name in schemas.SCHEMA_NAMES:
        (tmp_path / f"{name}.schema.json").write_text(schemas.schema_text(name))
    monkeypatch.setattr(schemas, "_schema_dir", lambda: tmp_path)
    clear_schema_caches()
    yield tmp_path
    monkeypatch.undo()
    clear_schema_caches()


def test_a_schema_with_a_remote_reference_is_never_compiled(schema_dir, monkeypatch):
    move = json.loads((schema_dir / "move.schema.json").read_text())
    move["properties"]["game"] = {"$ref": "https://example.invalid/game.json"}
    (schema_dir / "move.schema.json").write_text(json.dumps(move))
    import fastjsonschema

    def no_compile(*args, **kwargs):
        raise AssertionError("fastjsonschema.compile was called")
    monkeypatch.setattr(fastjsonschema, "compile", no_compile)
    assert not quickly_accepted({"game": "g", "turn": 1, "player": "a",
                                 "play": {"cards": 1, "shelf": "a"}}, "move")


def test_the_quick_check_never_writes_defaults_into_the_document(schema_dir):
    move = json.loads((schema_dir / "move.schema.json").read_text())
    move["properties"]["golden_dust"]["default"] = 0
    (schema_dir / "move.schema.json").write_text(json.dumps(move))
    doc = {"game": "g", "turn": 1, "player": "a", "play": {"cards": 1, "shelf": "a"}}
    assert quickly_accepted(doc, "move")
    assert "golden_dust" not in doc


@pytest.mark.parametrize("game", [{"type": "nonsense"}, {"type": "string", "pattern": "("}])
def test_a_schema_fastjsonschema_cannot_compile_is_left_to_jsonschema(schema_dir, game):
    move = json.loads((schema_dir / "move.schema.json").read_text())
    move["properties"]["game"] = game
    (schema_dir / "move.schema.json").write_text(json.dumps(move))
    assert schemas._quick_check("move") is None
    doc = {"game": "g", "turn": 1, "player": "a", "play": {"cards": 1, "shelf": "a"}}
    with pytest.raises(schemas.SchemaProblem,
                       match=re.escape("move.schema.json is not a valid JSON Schema")):
        validate(load_yaml(json.dumps(doc).encode(), source="m.yaml", kind="move"), "move")


def test_the_generated_move_check_is_the_schema_s_and_is_used():
    """rebis_pbm/formats/_fastchecks/move.py is fastjsonschema's code for the shipped move schema,
    generated once (make schema-checks) so that no command compiles it; with another
    fastjsonschema than the one that generated it, the schema is compiled at start instead."""
    import fastjsonschema

    from rebis_pbm.formats._fastchecks import move as generated
    clear_schema_caches()
    check = schemas._quick_check("move")
    if generated.VERSION == fastjsonschema.VERSION:
        assert (REPO / "rebis_pbm" / "formats" / "_fastchecks" /
        "move.py").read_text(encoding="utf-8") \
            == schemas.fast_check_code("move"), "stale: run make schema-checks"
        assert check is generated.validate
    else:
        assert check is not generated.validate and check is not None


def test_a_generated_check_of_another_schema_text_is_not_used(schema_dir):
    move = json.loads((schema_dir / "move.schema.json").read_text())
    move["properties"]["turn"]["maximum"] = 3  # the file was generated from another text
    (schema_dir / "move.schema.json").write_text(json.dumps(move))
    from rebis_pbm.formats._fastchecks import move as generated
    check = schemas._quick_check("move")
    assert check is not None and check is not generated.validate
    doc = {"game": "g", "turn": 4, "player": "a", "play": {"cards": 1, "shelf": "a"}}
    assert not quickly_accepted(doc, "move")  # this schema's rule, not the generated file's
    assert generated.validate(doc) == doc  # which would have let it through


def test_apply_of_a_valid_move_does_not_import_jsonschema(tmp_path):
    game = new_game(tmp_path / "game", ("ann", "bo"), "quick check")
    state, _ = setup(Ruleset(), ("ann", "bo"), "quick check")
    game_id = load_yaml(game.read_bytes(), source="game.yaml", kind="record").data["game"]
    move = write_move(tmp_path / "move.yaml", move_doc(legal_moves(state)[0], game_id))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO),
                                                                    os.environ.get("PYTHONPATH")])))
    code = ("import sys\nfrom rebis_pbm.cli import main\n"
            f"sys.argv = ['rebis-pbm', 'apply', {str(game)!r}, {str(move)!r}]\n"
            "try:\n    main()\n"
            "except SystemExit as e:\n    print('exit', e.code, file=sys.stderr)\n"
            "print('jsonschema' in sys.modules, 'fastjsonschema' in sys.modules, file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.stdout.startswith("Turn 1: ann "), out.stdout + out.stderr
    assert out.stderr.strip().splitlines() == ["exit 0", "False True"]


# --- views: a player's own tools (issue 31) ------------------------------------------------------

def view_jsonschema_accepts(doc) -> bool:
    from rebis_pbm.formats.schemas import _named_validator

    return next(_named_validator("view").iter_errors(doc), None) is None


def bench_views() -> list[dict]:
    """Every viewer's view of a 3-player game at its deal, mid-game and at its end (the seed
    revealed), in English and French: what `moves --view` and `check --view` read."""
    from rebis_pbm.bots import make_bot
    from rebis_pbm.engine import Ruleset, apply_move, information_set, setup
    from rebis_pbm.present import views
    from rebis_pbm.record import Replay

    state, setup_events = setup(Ruleset(), ("ann", "bob", "cid"), "view quick check")
    history, found = [], []
    bot = make_bot("random", "v")
    while True:
        replay = Replay(state, setup_events, tuple(history))
        if len(history) % 7 == 0 or state.finished:
            for viewer in (*state.players, None):
                for lang in ("en", "fr"):
                    view = views.build_view("g", replay, viewer, lang=lang,
                                            revealed=state.finished)
                    found.append(json.loads(views.render(view, "json")))
        if state.finished:
            return found
        move = bot.choose(information_set(state, state.to_move))
        state, events = apply_move(state, move)
        history.append((move, events))


def test_every_view_is_quickly_accepted_and_jsonschema_agrees():
    """The views a game gives (deal, play, end; every viewer) pass fastjsonschema's compiled
    check of view.schema.json, whose references to the move and record schemas are inlined."""
    found = bench_views()
    assert len(found) > 40
    for view in found:
        assert quickly_accepted(view, "view"), view["viewer"]
        assert view_jsonschema_accepts(view)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.data())
def test_the_view_quick_check_accepts_nothing_that_jsonschema_refuses(data):
    """Mutations of real views (a field dropped, a value replaced by another type or text):
    whatever the quick check accepts, jsonschema accepts."""
    views_found = bench_views_once()
    view = json.loads(json.dumps(data.draw(st.sampled_from(views_found))))
    paths = list(_leaves(view))
    path = data.draw(st.sampled_from(paths))
    parent = view
    for step in path[:-1]:
        parent = parent[step]
    if data.draw(st.booleans()) and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = data.draw(st.one_of(st.integers(-3, 99), st.text(max_size=8),
                                               st.none(), st.booleans(), st.just([])))
    if quickly_accepted(view, "view"):
        assert view_jsonschema_accepts(view), (path, view)


_VIEWS: list[dict] = []


def bench_views_once() -> list[dict]:
    if not _VIEWS:
        _VIEWS.extend(bench_views())
    return _VIEWS


def _leaves(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield (*path, key)
            yield from _leaves(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield (*path, index)
            yield from _leaves(value, (*path, index))


def test_a_players_check_against_their_view_imports_no_jsonschema(tmp_path):
    """`check MOVE --view` and `moves --view` judge a valid view with the compiled check: no
    jsonschema, no meta-schema check (issue 31: a player's check costs what `moves --view`
    costs)."""
    import subprocess
    import sys

    from rebis_pbm import app

    app.create_game(tmp_path / "g.yaml", ["ann", "bob"], seed="own check", insecure_seed=True,
                    game_id="own")
    view = tmp_path / "g.views" / "ann.yaml"
    listing = app.legal_moves_from_view(view)
    (tmp_path / "m.yaml").write_text(listing.split("---\n")[1])
    code = ("import sys\nfrom rebis_pbm.start import main\n"
            "for args in (['moves', '--view', sys.argv[1]], "
            "['check', sys.argv[2], '--view', sys.argv[1]]):\n"
            "    sys.argv = ['rebis-pbm', *args]\n"
            "    try:\n        main()\n    except SystemExit as e:\n        assert not e.code, e\n"
            "print('jsonschema' in sys.modules, 'referencing' in sys.modules, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code, str(view), str(tmp_path / "m.yaml")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "False False", done.stderr
