"""What `rebis-pbm apply` does with every kind of input a person or a mail client produces
(issues 2 and 4): accepted forms are applied, everything else exits 2 with one sentence on
stderr (file, position, what is wrong, what to write) and changes nothing on disk.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
import yaml

from clitools import new_game, run_inproc, run_script, secret_of, snapshot
from rebis_pbm.app import open_game
from rebis_pbm.formats.yaml_reader import MAX_DEPTH, MAX_INT_DIGITS, MOVE_MAX_BYTES

GAME_ID = "cli-game"


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    return new_game(tmp_path_factory.mktemp("input") / "game", ("alice", "bob"), "input tests",
                    "--game-id", GAME_ID)


@pytest.fixture
def game(template, tmp_path) -> Path:
    folder = tmp_path / "game"
    shutil.copytree(template.parent, folder)
    return folder / "game.yaml"


def a_legal_move_text(game: Path) -> str:
    """A legal turn-1 move for alice, written the way a person would, LF line ends."""
    state = open_game(game)[1].state
    card = state.hands[0][0]
    return (f"game: {GAME_ID}\nturn: 1\nplayer: alice\n"
            f"play:\n  cards: {card}\n  shelf: alice\n  sign: positive\n")


def moves_recorded(game: Path) -> int:
    return len(yaml.safe_load(game.read_text())["moves"])


# ------------------------------------------------------------------------ accepted forms

@pytest.mark.parametrize("form", ["plain", "bom", "crlf", "lone cr", "bom+crlf", "stdin",
                                  "exactly 64 KiB", "flow style", "comments"])
def test_accepted_forms_are_applied(cli, game, tmp_path, form):
    text = a_legal_move_text(game)
    data = text.encode()
    if form == "bom":
        data = b"\xef\xbb\xbf" + data
    elif form == "crlf":
        data = text.replace("\n", "\r\n").encode()
    elif form == "lone cr":
        data = text.replace("\n", "\r").encode()
    elif form == "bom+crlf":
        data = b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode()
    elif form == "exactly 64 KiB":
        data += b"#" * (MOVE_MAX_BYTES - len(data) - 1) + b"\n"
        assert len(data) == MOVE_MAX_BYTES
    elif form == "flow style":
        doc = yaml.safe_load(text)
        data = (f"{{game: {GAME_ID}, turn: 1, player: alice, play: {{cards: "
                f"[{doc['play']['cards']}], shelf: alice}}}}\n").encode()
    elif form == "comments":
        data = ("# my move\n---\n" + text.replace("\n", "  # note\n", 1)).encode()
    if form == "stdin":
        outcome = cli("apply", game, "-", stdin=data)
    else:
        path = tmp_path / "move.yaml"
        path.write_bytes(data)
        outcome = cli("apply", game, path)
    assert outcome.code == 0, outcome.err
    assert outcome.out.startswith("Turn 1: alice played ")
    assert moves_recorded(game) == 1


# ------------------------------------------------------------------------ rejected forms

def _line_col(text: str, needle: str) -> tuple[int, int]:
    """1-based line and column where ``needle`` first starts in ``text``."""
    index = text.index(needle)
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _replace_line(text: str, key: str, new: str) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(new if ln.startswith(key) else ln for ln in lines)


def case_non_utf8(base):
    data = base.replace("player: alice", "player: al\xe9ce").encode("latin-1")
    offset = data.index(b"\xe9")
    return data, [f"byte {offset} (counting from 0, value 0xE9) is not valid UTF-8",
                  "save the file as UTF-8", f":{base.count(chr(10), 0, base.index('player')) + 1}:"]


def case_duplicate_key(base):
    text = base.replace("turn: 1\n", "turn: 1\nturn: 2\n")
    return text, ["field 'turn' appears twice, on lines 2 and 3", "keep only one",
                  "move.yaml:3:1:"]


def case_anchor(base):
    return base.replace("player: alice", "player: &me alice"), ["anchors ('&me') are not allowed"]


def case_alias(base):
    return base.replace("shelf: alice", "shelf: *me"), ["aliases ('*me') are not allowed"]


def case_tag(base):
    text = base.replace("player: alice", "player: !!python/object/apply:os.system [ls]")
    return text, ["explicit tags ('!!python/object/apply:os.system') are not allowed"]


def case_local_tag(base):
    return base.replace("turn: 1", "turn: !int 1"), ["explicit tags ('!int') are not allowed"]


def case_two_documents(base):
    return base + "---\n" + base, ["a second YAML document starts here",
                                   "exactly one document", f":{base.count(chr(10)) + 1}:1:"]


def case_empty(base):
    return "", ["the file is empty", "a move file is a YAML mapping"]


def case_only_comments(base):
    return "# nothing here\n\n", ["the file is empty"]


def case_list(base):
    return "- game: x\n- turn: 1\n", ["must be a YAML mapping", "not a list"]


def case_scalar(base):
    return "play 7 on bob\n", ["must be a YAML mapping", "not a single value"]


def case_too_big(base):
    data = base.encode() + b"#" * (MOVE_MAX_BYTES + 1 - len(base))
    assert len(data) == MOVE_MAX_BYTES + 1
    return data, [f"the file is larger than 64 KiB ({MOVE_MAX_BYTES} bytes), the limit for a move "
                  "file; check that this is the right file"]


def case_too_deep(base):
    depth = MAX_DEPTH + 8
    return base + "note: " + "[" * depth + "]" * depth + "\n", [
        f"nested more than {MAX_DEPTH} levels deep"]


def case_huge_integer(base):
    digits = "9" * (MAX_INT_DIGITS + 30)
    return _replace_line(base, "turn:", f"turn: {digits}\n"), [
        f"has {len(digits)} digits; at most {MAX_INT_DIGITS} are allowed", "field turn"]


def case_player_no(base):
    text = base.replace("player: alice", "player: no")
    line, col = _line_col(text, "no\n")
    return text, [f"move.yaml:{line}:{col}: field player:", "write 'no' in quotes"]


def case_shelf_off(base):
    text = base.replace("shelf: alice", "shelf: off")
    return text, ["field play.shelf:", "write 'off' in quotes"]


def case_turn_octal(base):
    text = _replace_line(base, "turn:", "turn: 010\n")
    line, col = _line_col(text, "010")
    return text, [f"move.yaml:{line}:{col}: field turn:", "reads 010 as the octal number 8",
                  "write 10, without the leading zero"]


def case_turn_timestamp(base):
    text = _replace_line(base, "turn:", "turn: 2024-05-01\n")
    return text, ["field turn: must be a whole number", "YAML reads 2024-05-01 as a date"]


def case_schema_type(base):
    text = _replace_line(base, "turn:", "turn: three\n")
    line, col = _line_col(text, "three")
    return text, [f"move.yaml:{line}:{col}: field turn: must be a whole number, not text ('three')"]


def case_schema_nested(base):
    text = base.replace("sign: positive", "sign: postive")
    line, col = _line_col(text, "postive")
    return text, [f"move.yaml:{line}:{col}: field play.sign:", "did you mean 'positive'?"]


def case_sign_symbol(base):
    text = base.replace("sign: positive", "sign: -")
    return text, ["'-' here starts a list item", "the word negative or positive"]


def case_sign_plus(base):
    text = base.replace("sign: positive", "sign: '+'")
    return text, ["field play.sign: must be one of positive, negative, not '+'",
                  "write the word positive", "not + or -"]


def case_one_of_best_match(base):
    text = _replace_line(base, "  cards:", "  cards: seven\n")
    line, col = _line_col(text, "seven")
    return text, [f"move.yaml:{line}:{col}: field play.cards: must be one of these forms",
                  "one card number, such as 7", "such as [5, 5]"]


def case_three_cards(base):
    return _replace_line(base, "  cards:", "  cards: [4, 4, 4]\n"), [
        "field play.cards: must have at most 2 items, not 3"]


def case_unknown_field(base):
    text = base.replace("turn: 1", "tunr: 1")
    line, col = _line_col(text, "tunr")
    return text, [f"move.yaml:{line}:{col}: unknown field 'tunr'; did you mean 'turn'?"]


def case_unknown_nested_field(base):
    text = base.replace("  shelf: alice", "  shelve: alice")
    return text, ["unknown field 'play.shelve'; did you mean 'shelf'?"]


def case_missing_field(base):
    text = _replace_line(base, "player:", "")
    return text, ["field 'player' is missing", "add it"]


def case_missing_play(base):
    text = base[:base.index("play:")]
    return text, ["field 'play' (a turn's move, with play: {cards, shelf, sign}) or field "
                  "'red_token' (the game's last move, with red_token: {player, shelf}) is "
                  "missing; add one of them"]


def case_decimal(base):
    return _replace_line(base, "  cards:", "  cards: 2.5\n"), ["2.5 is not a whole number"]


def case_control_character(base):
    return base.replace("alice\n", "ali\x07ce\n", 1), ["control character U+0007"]


def case_line_break_in_a_value(base):
    # Quoted back as an escape, so the message stays one line.
    return base.replace("player: alice", 'player: "ali\\nce\\x1e"'), [
        "field player: 'ali\\nce\\x1e' is not in the expected form"]


def case_not_yaml(base):
    return "game: [cli-game\nturn: 1\n", ["this is not valid YAML"]


def case_tab_indent(base):
    return base.replace("  cards:", "\tcards:"), ["this is not valid YAML", "tab"]


def case_wrong_game(base):
    return base.replace(f"game: {GAME_ID}", "game: another-game"), [
        "this move is for game another-game", f"is game {GAME_ID}"]


def case_long_value_is_quoted_cut(base):
    # A message quotes at most 40 characters of a value or a field name, then their length.
    text = base.replace("player: alice", "player: " + "b" * 5000)
    return text, ["field player: '" + "b" * 40
                  + "... (5000 characters)' is not in the expected form"]


def case_long_field_name_is_quoted_cut(base):
    text = base + "y" * 300 + ": 1\n"
    return text, ["unknown field '" + "y" * 40 + "... (300 characters)'; the fields allowed"]


def case_long_decimal_is_quoted_cut(base):
    return base.replace("turn: 1", "turn: 1." + "0" * 20000), [
        "field turn: 1." + "0" * 38 + "... (20002 characters) is not a whole number"]


def case_long_number_read_as_text_is_quoted_cut(base):
    text = base.replace("player: alice", "player: 1" + "_" * 20000 + "2")
    return text, ["'1" + "_" * 39 + "... (20002 characters)'"]


def case_long_anchor_is_quoted_cut(base):
    return base.replace("turn: 1", "turn: &" + "a" * 20000 + " 1"), [
        "anchors ('&" + "a" * 40 + "... (20000 characters)') are not allowed"]


def case_long_numeric_field_name_is_quoted_cut(base):
    return base + "9" * 1000 + ": 1\n", ["the field name " + "9" * 40 + "... (1000 characters)"]


def case_name_with_a_final_line_break(base):
    return base.replace("player: alice", 'player: "alice\\n"'), [
        "field player: 'alice\\n' is not in the expected form"]


def case_underscore_in_a_number(base):
    return base.replace("turn: 1", "turn: 1_0"), [
        "field turn: YAML reads 1_0 as the number 10: write 10 as a plain decimal number"]


def case_plus_sign_in_the_turn(base):
    return base.replace("turn: 1", "turn: +1"), [
        "field turn: YAML reads +1 as the number 1: write 1 as a plain decimal number"]


def case_plus_sign_in_the_cards(base):
    return _replace_line(base, "  cards:", "  cards: +3\n"), [
        "field play.cards: YAML reads +3 as the number 3: write 3 as a plain decimal number"]


def case_null_where_quoting_would_not_help(base):
    text = base.replace("sign: positive", "sign: ~")
    return text, ["field play.sign: must be one of positive, negative, not '~'"]


def case_bool_where_a_number_is_wanted(base):
    text = _replace_line(base, "  cards:", "  cards: yes\n")
    return text, ["field play.cards: must be one of these forms", "(YAML reads a bare yes as true)"]


def case_random_bytes(base):
    return random.Random(4).randbytes(2000), ["is not valid UTF-8"]


def case_random_text(base):
    rng = random.Random(5)
    junk = "".join(rng.choice("abc:{}[]-,'\"#&*!| \n") for _ in range(300))
    return junk, []   # whatever it is, one sentence and exit 2


CASES = {name[5:]: f for name, f in globals().items() if name.startswith("case_")}
# Every case runs in-process; these also through the installed script (bytes through a real
# process boundary: encodings, sizes, control characters, stderr as one line).
SCRIPT_CASES = ("non_utf8", "too_big", "random_bytes", "random_text", "control_character",
                "line_break_in_a_value", "player_no", "tag", "two_documents", "schema_nested")


@pytest.mark.parametrize("how, case", [("runner", c) for c in sorted(CASES)]
                         + [("script", c) for c in SCRIPT_CASES])
def test_rejected_input_exits_2_with_one_sentence(request, game, tmp_path, how, case):
    if how == "runner":
        cli = run_inproc
    else:
        script = request.getfixturevalue("console_script")
        cli = lambda *args, **kw: run_script(script, *args, **kw)  # noqa: E731
    base = a_legal_move_text(game)
    data, words = CASES[case](base)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path = tmp_path / "move.yaml"
    path.write_bytes(data)
    before = snapshot(game.parent)

    outcome = cli("apply", game, path)

    outcome.refused(2, words, prefix=f"rebis-pbm: {path}")
    assert snapshot(game.parent) == before


def test_rejected_stdin_is_named_stdin(cli, game):
    before = snapshot(game.parent)
    outcome = cli("apply", game, "-", stdin=b"turn: 1\nturn: 1\n")
    assert outcome.code == 2
    assert outcome.one_error_line().startswith("rebis-pbm: <stdin>:2:1: field 'turn' appears twice")
    assert snapshot(game.parent) == before


# ------------------------------------------------------------------ records, seeds, paths

def _break_record(game: Path, how: str) -> dict:
    """Change the game's files the way an accident would; returns env for the command."""
    if how == "missing seed":
        game.with_name("game.secret.yaml").unlink()
    elif how == "secret of another game":
        game.with_name("game.secret.yaml").write_text("game: other\nseed: x\n")
    elif how == "truncated record":
        data = game.read_bytes()
        game.write_bytes(data[: len(data) // 2])
    elif how == "record cut mid-line":
        text = game.read_text()
        game.write_text(text[: text.index("\nstatus:")] + "\nstatus: {fini")
    elif how == "record cut inside its status":
        text = game.read_text()
        end = text.index("\nstatus:\n") + len("\nstatus:\n")
        game.write_text(text[:end] + text[end:].split(":", 1)[0][:-2])  # '  pha'
    elif how == "record cut inside its header comment":
        game.write_bytes(game.read_bytes()[:40])
    elif how == "record with merge conflict markers":
        text = game.read_text()
        game.write_text(text + "<<<<<<< HEAD\n")
    elif how == "record not yaml":
        game.write_bytes(b"\x00\x01garbage")
    elif how == "record with a stray field":
        game.write_text(game.read_text() + "winner: me\n")
    elif how == "wrong seed in the secret file":
        game.with_name("game.secret.yaml").write_text("game: cli-game\nseed: not the seed\n")
    elif how == "wrong seed in the environment":
        return {"REBIS_PBM_SEED": "0" * 32 + ":not the seed"}  # SALT:SEED, of no game
    elif how == "seed without its salt in the environment":
        return {"REBIS_PBM_SEED": "not the seed"}
    return {}


@pytest.mark.parametrize("how, words", [
    ("missing seed", ["no seed for game cli-game", "game.secret.yaml does not exist",
                      "REBIS_PBM_SEED is not set"]),
    ("secret of another game", ["is not the secret of game cli-game",
                                "; it is the secret of game other"]),
    ("record not yaml", ["game.yaml", "control character"]),
    ("record with a stray field", ["unknown field 'winner'"]),
    ("wrong seed in the environment", ["the seed in REBIS_PBM_SEED is not game cli-game's: it "
                                       "does not match the record's commitment (seed_sha256); "
                                       "unset it, or set it to game cli-game's seed"]),
    ("seed without its salt in the environment", [
        "REBIS_PBM_SEED holds no salt: game cli-game is a rebis-pbm/", " game, whose secret is "
        "SALT:SEED, the salt: and seed: of its secret file joined by a colon (as "
        "game.secret.yaml holds them)"]),
    ("wrong seed in the secret file", ["game.secret.yaml is not game cli-game's",
                                       "restore the secret file written by rebis-pbm new"]),
])
def test_unusable_record_or_seed_exits_2(cli, game, tmp_path, how, words):
    """apply through both runners; view, moves and score (same loading code) in-process."""
    check_every_reader(cli, game, tmp_path, how, 2, words)


@pytest.mark.parametrize("how, words", [
    ("truncated record", ["game.yaml fails verification at ", "cut short",
                          "nothing was written (rebis-pbm verify", "tells more)"]),
    ("record cut mid-line", ["game.yaml fails verification at ", "cannot be read",
                             "(rebis-pbm verify"]),
    ("record cut inside its status", ["game.yaml fails verification at ", "(rebis-pbm verify"]),
    ("record cut inside its header comment", ["game.yaml fails verification at ",
                                              "(rebis-pbm verify"]),
    ("record with merge conflict markers", ["game.yaml fails verification at ",
                                            "cut short, or damaged", "(rebis-pbm verify"]),
])
def test_a_damaged_record_fails_verification_in_every_command_exit_3(cli, game, tmp_path, how,
                                                                     words):
    """A record rebis-pbm wrote (it starts with the record's header) that was cut short or
    no longer reads as YAML was damaged since: every command says so as verify does (exit 3),
    rather than giving the schema's advice to edit it."""
    check_every_reader(cli, game, tmp_path, how, 3, words)


def check_every_reader(cli, game, tmp_path, how, code, words):
    move = tmp_path / "move.yaml"
    move.write_text(a_legal_move_text(game))
    env = _break_record(game, how)
    before = snapshot(game.parent)
    runs = [cli("apply", game, move, env=env)]
    if cli is run_inproc:
        runs += [run_inproc("moves", game, "--player", "alice", env=env)]
        if how != "missing seed":  # the public view and the score need no seed (issue 15)
            runs += [run_inproc("view", game, "--public", env=env),
                     run_inproc("score", game, env=env)]
    for outcome in runs:
        outcome.refused(code, words)
    assert snapshot(game.parent) == before


def test_seed_from_the_environment_replaces_the_secret_file(cli, game, tmp_path):
    move = tmp_path / "move.yaml"
    move.write_text(a_legal_move_text(game))
    key = secret_of(game.with_name("game.secret.yaml"))  # SALT:SEED: a rebis-pbm/2 game's secret
    game.with_name("game.secret.yaml").unlink()
    outcome = cli("apply", game, move, env={"REBIS_PBM_SEED": key})
    assert outcome.code == 0, outcome.err


def test_tampered_record_fails_verification_exit_3(cli, game, tmp_path):
    """A record whose moves were edited by hand no longer replays: exit 3, nothing written."""
    move = tmp_path / "move.yaml"
    move.write_text(a_legal_move_text(game))
    assert cli("apply", game, move).code == 0
    hand = open_game(game)[1].state.hands[0]
    record = yaml.safe_load(game.read_text())
    missing = next(n for n in range(1, 10)
                   if n not in hand and n != record["moves"][0]["play"]["cards"])
    text = game.read_text().replace(f"cards: {record['moves'][0]['play']['cards']}\n",
                                    f"cards: {missing}\n", 1)
    game.write_text(text)
    before = snapshot(game.parent)
    for args in (["apply", game, move], ["view", game, "--public"], ["score", game]):
        outcome = cli(*args)
        assert outcome.code == 3, outcome.err
        line = outcome.one_error_line()
        assert "fails verification at turn 1 (alice)" in line and "was edited" in line
        assert "nothing was written" in line
    assert snapshot(game.parent) == before


def test_record_whose_header_was_edited_fails_verification(cli, game):
    """A record edited to deal more cards than the deck holds (R5): exit 3, not a crash."""
    game.write_text(game.read_text().replace("hand_size: 5", "hand_size: 60"))
    before = snapshot(game.parent)
    outcome = cli("view", game, "--public")
    assert outcome.code == 3
    line = outcome.one_error_line()
    assert "fails verification at the record's header" in line and "edited" in line
    assert snapshot(game.parent) == before


@pytest.mark.parametrize("what", ["missing record", "record is a folder", "missing move file",
                                  "move file is a folder"])
def test_missing_paths_exit_2_and_create_nothing(cli, game, tmp_path, what):
    move = tmp_path / "move.yaml"
    move.write_text(a_legal_move_text(game))
    record = game
    if what == "missing record":
        record = game.with_name("nope.yaml")
    elif what == "record is a folder":
        record = game.with_name("game.views")
    elif what == "missing move file":
        move = tmp_path / "nope.yaml"
    else:
        move = tmp_path
    before = snapshot(game.parent)
    outcome = cli("apply", record, move)
    assert outcome.code == 2
    if what == "record is a folder":   # click's own usage error (a few lines, no traceback)
        assert "Traceback" not in outcome.err and "is a directory" in outcome.err
    else:
        assert {"missing record": "there is no such game record",
                "missing move file": "there is no such file",
                "move file is a folder": "this is a folder"}[what] in outcome.one_error_line()
    assert snapshot(game.parent) == before      # in particular no lock file for nope.yaml


def test_views_folder_that_cannot_be_made_changes_nothing(cli, game, tmp_path):
    """apply refuses before writing the record when the views cannot be written at all."""
    move = tmp_path / "move.yaml"
    move.write_text(a_legal_move_text(game))
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    before = snapshot(game.parent)
    outcome = cli("apply", game, move, "--views-dir", blocker / "views")
    assert outcome.code == 2
    assert "the views folder cannot be created" in outcome.one_error_line()
    assert snapshot(game.parent) == before
