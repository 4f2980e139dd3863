"""The record's writer copies the moves' text it read (issue 31, record.codec.MovesRead):
``apply`` and the referee's other writes give, byte for byte, what writing every entry gives,
and a moves list the copy cannot place is written whole."""

from __future__ import annotations

import dataclasses
import enum
import re
from pathlib import Path

import pytest

from rebis_pbm import app
from rebis_pbm.bots import make_bot
from rebis_pbm.engine import information_set
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.record import find_seed
from rebis_pbm.record.audit import verify
from rebis_pbm.record.codec import HEADER, dump_record, moves_read, same_data

PLAYERS = ("ann", "bo", "cy")


def written_whole(game: Path) -> str:
    """The record at ``game`` as the writer gives it when it writes every entry."""
    record, replay, seed = app.open_game(game)
    return dump_record(dataclasses.replace(record, moves_read=None), replay.state, seed)


def next_move(game: Path, now: str | None = None) -> None:
    record, replay, _ = app.open_game(game)
    state = replay.state
    move = make_bot("random", f"copy/{state.turn}").choose(information_set(state, state.to_move))
    data = dump_yaml({"game": record.game, **move.as_dict()}).encode()
    app.submit_move(game, data, "move.yaml", now=now)


@pytest.mark.parametrize("seed", ["copied one", "copied two", "copied three"])
def test_every_write_of_a_played_game_is_what_writing_every_entry_gives(tmp_path: Path, seed):
    """A whole game with deadlines (each entry's time), extensions logged between moves, the
    bot's moves for a late player and the seed revealed at the end: after every write the
    file is, byte for byte, the record written entry by entry."""
    game = tmp_path / "game.yaml"
    app.create_game(game, list(PLAYERS), seed=seed, insecure_seed=True, game_id="copy",
                    deadline=3600, now="2026-01-01T00:00:00Z")
    hour = 0
    copied = 0
    while True:
        record, replay, _ = app.open_game(game)
        copied += record.moves_read is not None
        assert record.moves_read is not None or not record.moves
        if replay.state.finished:
            break
        hour += 1
        now = f"2026-01-{1 + hour // 24:02d}T{hour % 24:02d}:00:00Z"
        if hour % 7 == 0:
            app.log_action(game, "extend_deadline", now=now,
                           seconds=600)  # type: ignore[arg-type]  # as the CLI passes it
        elif hour % 5 == 0:  # late: the bot moves for the player
            app.tick(game, now=f"2026-01-{1 + hour // 24:02d}T{hour % 24:02d}:59:59Z")
            hour += 1
        else:
            next_move(game, now)
        assert game.read_text() == written_whole(game)
    assert copied > 20
    assert verify(game.read_bytes(), "game.yaml").verified


def test_hand_formatted_moves_keep_their_text_and_the_record_still_verifies(tmp_path: Path):
    """A comment and a flow mapping among the moves: valid YAML of the same data, read by the
    fast path, so apply copies them as they are; the record is the same data as written whole
    and verifies."""
    game = tmp_path / "game.yaml"
    app.create_game(game, list(PLAYERS), seed="hand formatted", insecure_seed=True,
                    game_id="copy")
    for _ in range(4):
        next_move(game)
    text = game.read_text()
    text = text.replace("- turn: 2\n", "# the second move\n- turn: 2\n", 1)
    game.write_text(text)
    assert app.open_game(game)[0].moves_read is not None
    next_move(game)
    after = game.read_text()
    assert "# the second move\n- turn: 2\n" in after
    whole = written_whole(game)
    assert after.replace("# the second move\n", "") == whole
    assert verify(after.encode(), "game.yaml",
                  lambda record: (find_seed(game, record), "secret")).verified


def indented_moves(text: str) -> str:
    """``text`` with its moves list indented by 2 more spaces: the same data."""
    head, rest = text.split("\nmoves:\n", 1)
    moves, tail = re.split(r"\n(?=[a-z])", rest, maxsplit=1)  # up to the next key
    return (head + "\nmoves:\n" + "".join("  " + line for line in moves.splitlines(True))
            + "\n" + tail)


@pytest.mark.parametrize("edit", [
    pytest.param(lambda t: t.replace("\n", "\r\n"), id="CRLF line ends"),
    pytest.param(lambda t: indented_moves(t), id="an indented list"),
])
def test_a_moves_list_the_copy_cannot_place_is_written_whole(tmp_path: Path, edit):
    game = tmp_path / "game.yaml"
    app.create_game(game, list(PLAYERS), seed="written whole", insecure_seed=True,
                    game_id="copy")
    for _ in range(3):
        next_move(game)
    game.write_bytes(edit(game.read_text()).encode())
    next_move(game)
    assert game.read_text() == written_whole(game)
    assert game.read_text().startswith(HEADER)


def test_moves_read_refuses_a_layout_it_does_not_know():
    doc = {"moves": [{"turn": 1}, {"turn": 2}], "status": {"phase": "play"}}
    text = "moves:\n- turn: 1\n- turn: 2\nstatus:\n  phase: play\n"
    assert moves_read("x: 1\n" + text, doc) == ("- turn: 1\n- turn: 2\n", doc["moves"])
    assert moves_read(text, doc) is None  # "moves:" first: not after a line break
    assert moves_read("x: 1\nmoves: [{turn: 1}, {turn: 2}]\nstatus: {phase: play}\n", doc) is None
    # an item line for each entry, or the text is not known to be this list
    assert moves_read("x: 1\n" + text, {**doc, "moves": [{"turn": 1}]}) is None
    assert moves_read("x: 1\nmoves:\n- turn: 1\n", {"moves": [{"turn": 1}]}) is None  # last key


class Phase(str, enum.Enum):
    PLAY = "play"


@pytest.mark.parametrize("one, other, same", [
    ({"zero": False}, {"zero": 0}, False),
    ({"turn": 1}, {"turn": True}, False),
    ({"turn": 1}, {"turn": 1.0}, False),
    ({"turn": 1}, {"turn": "1"}, False),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}, False),
    ([{"a": [1, 2]}], [{"a": [1, 2]}], True),
    ({"status": {"phase": Phase.PLAY}}, {"status": {"phase": "play"}}, True),
    ({"status": {"phase": Phase.PLAY}}, {"status": {"phase": "over"}}, False),
    (None, None, True),
])
def test_same_data_tells_types_and_key_order_apart(one, other, same):
    assert same_data(one, other) is same
    assert same_data(other, one) is same
