"""Games with e-mail addresses (every mail and git game) take the fast read path, and a record
is read once per command (docs/performance.md): the addresses' form is checked without
jsonschema (``schemas.address_accepted``), exactly as the record schema checks it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rebis_pbm.engine import Move, Ruleset, legal_moves, setup
from rebis_pbm.formats.schemas import _validator, address_accepted, load_schema
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.record import FORMAT, Record, commitment, dump_record, salted
from rebis_pbm.record.verify import _read_as_written, read_checked

REPO = Path(__file__).resolve().parents[2]
SEED = "speed-paths"
SALT = "5a" * 16
KEY = salted(SEED, SALT)  # the game's secret (rebis-pbm/2): it keys the digests
ADDRESSES = {"ann": "ann@example.org", "bo": "bo@example.org"}


def _schema_accepts_address(value) -> bool:
    """jsonschema's verdict on ``value`` as an address, under the record schema's own rule."""
    rule = load_schema("record")["properties"]["addresses"]["additionalProperties"]
    return _validator(rule).is_valid(value)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.emails(), st.text(), st.text(alphabet="@ab.\n ", max_size=6),
                 st.text(min_size=250, max_size=260).map(lambda t: "a@" + t),
                 st.integers(), st.none(), st.booleans(), st.lists(st.text(), max_size=2)))
def test_the_fast_address_check_accepts_exactly_what_the_schema_accepts(value):
    assert address_accepted(value) == _schema_accepts_address(value)


def test_every_address_new_accepts_is_accepted_by_the_fast_check():
    from rebis_pbm.transports.mail.policy import check_address
    for text in ("ann@example.org", "a.b+c@sub.example.co.uk", "x@y", "\"q u\"@example.org"):
        assert address_accepted(check_address(text))


def game_text(addresses: dict, moves: int = 3) -> str:
    state, _ = setup(Ruleset(), ("ann", "bo"), SEED)
    record = Record("speed", Ruleset(), ("ann", "bo"), commitment(FORMAT, KEY), addresses=addresses)
    for _ in range(moves):
        move = legal_moves(state)[0]
        from rebis_pbm.engine import apply_move

        state, events = apply_move(state, move)
        record = record.with_move(move, state, KEY, events)
    return dump_record(record, state, KEY)


def test_a_record_with_addresses_takes_the_fast_path():
    data = game_text(ADDRESSES).encode()
    fast = _read_as_written(data, "game.yaml", lambda record: KEY)
    assert fast is not None
    assert fast[:2] == read_checked(data, "game.yaml", lambda record: KEY)[:2]
    assert fast[0].addresses == ADDRESSES


@pytest.mark.parametrize("address", ["ann.example.org", "a@" + "x" * 253, "'1'"])
def test_an_address_outside_the_schema_goes_down_the_checked_path(address):
    data = game_text({"ann": "ann@example.org"}).replace("ann@example.org", address).encode()
    assert _read_as_written(data, "game.yaml", lambda record: KEY) is None


def _imports_after(tmp_path: Path, argv: list[str]) -> tuple[subprocess.CompletedProcess, str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO),
                                                                    os.environ.get("PYTHONPATH")])))
    code = ("import sys\nfrom rebis_pbm.cli import main\n"
            f"sys.argv = ['rebis-pbm', *{argv!r}]\ntry:\n    main()\n"
            "except SystemExit as exc:\n    assert not exc.code, exc.code\n"
            "print('jsonschema' in sys.modules, file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, env=env, timeout=120)
    return out, out.stderr.strip().splitlines()[-1] if out.stderr.strip() else ""


def _write_game(folder: Path, game_id: str, seed: str, move_file: Path) -> Move:
    """A 2-player referee-deal game with addresses in ``folder`` (record and secret), and its
    first legal move written to ``move_file``; returns that move."""
    state, _ = setup(Ruleset(), ("ann", "bo"), seed)
    key = salted(seed, SALT)
    record = Record(game_id, Ruleset(), ("ann", "bo"), commitment(FORMAT, key),
                    addresses=ADDRESSES)
    (folder / "game.yaml").write_text(dump_record(record, state, key))
    (folder / "game.secret.yaml").write_text(f"game: {game_id}\nseed: {seed}\nsalt: {SALT}\n")
    move = legal_moves(state)[0]
    move_file.write_text(dump_yaml({"game": game_id, **move.as_dict()}))
    return move


def _new_game(tmp_path: Path) -> dict:
    return {"move": _write_game(tmp_path, "speed", SEED, tmp_path / "move.yaml")}


def _mail_in_counting_reads(tmp_path: Path, target: str, move_file: Path, *,
                            jsonschema: bool = False) -> tuple[subprocess.CompletedProcess, list]:
    """``rebis-pbm mail in TARGET m.eml`` of one message from ann carrying ``move_file``, in a
    process that counts the records read (``read_game``) and prints ``reads N`` last on standard
    error (before it, with ``jsonschema``, whether jsonschema was imported)."""
    message = (f"From: {ADDRESSES['ann']}\nTo: referee@example.org\nSubject: move\n"
               "Message-ID: <m1@example.org>\n\n").encode() + move_file.read_bytes()
    (tmp_path / "m.eml").write_bytes(message)
    counting = ("import rebis_pbm.record.verify as v\nreads = []\nold = v.read_game\n"
                "def counted(*a, **k):\n    reads.append(1)\n    return old(*a, **k)\n"
                "v.read_game = counted\nimport rebis_pbm.app.games as r\nr.read_game = counted\n"
                "import atexit, sys\natexit.register(lambda: print('reads', len(reads), "
                "file=sys.stderr))\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO),
                                                                    os.environ.get("PYTHONPATH")])))
    code = (counting + "from rebis_pbm.cli import main\nsys.argv = ['rebis-pbm', 'mail', 'in', "
            f"{target!r}, 'm.eml', '--referee', 'referee@example.org']\ntry:\n    main()\n"
            "except SystemExit as exc:\n    assert not exc.code, exc.code\n"
            + ("print('jsonschema' in sys.modules, file=sys.stderr)" if jsonschema else ""))
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, env=env, timeout=120)
    return out, out.stderr.strip().splitlines()


def test_apply_view_and_moves_of_a_game_with_addresses_need_no_jsonschema(tmp_path: Path):
    _new_game(tmp_path)
    for argv in (["view", "game.yaml", "--player", "ann"],
                 ["moves", "game.yaml", "--player", "ann"],
                 ["apply", "game.yaml", "move.yaml"]):
        out, imported = _imports_after(tmp_path, argv)
        assert out.returncode == 0, out.stderr
        assert imported == "False", (argv, out.stderr)
    assert "turn: 1" in (tmp_path / "game.yaml").read_text()


def test_mail_in_reads_the_record_once_and_without_jsonschema(tmp_path: Path):
    """The sender check and the move's entry read the same bytes: one read, the fast path."""
    made = _new_game(tmp_path)
    out, lines = _mail_in_counting_reads(tmp_path, "game.yaml", tmp_path / "move.yaml",
                                         jsonschema=True)
    assert out.returncode == 0, out.stderr
    assert "turn 1 applied (ann)" in out.stdout
    assert lines[-2:] == ["False", "reads 1"], out.stderr
    assert f"player: {made['move'].player}" in (tmp_path / "game.yaml").read_text()


def test_mail_in_of_a_folder_reads_each_game_once(tmp_path: Path):
    """A folder of more games than a process usually keeps: the routing read, the crash check
    under the lock and the message's own read replay each game once (referee.games_kept)."""
    games = 6
    for i in range(games):
        folder = tmp_path / "league" / f"g{i}"
        folder.mkdir(parents=True)
        _write_game(folder, f"speed{i}", f"{SEED}-{i}", tmp_path / f"move{i}.yaml")
    out, _ = _mail_in_counting_reads(tmp_path, "league", tmp_path / "move4.yaml")
    assert out.returncode == 0, out.stderr
    assert "turn 1 applied (ann)" in out.stdout
    assert out.stderr.strip().splitlines()[-1] == f"reads {games}", out.stderr
    assert "turn: 1" in (tmp_path / "league" / "g4" / "game.yaml").read_text()
