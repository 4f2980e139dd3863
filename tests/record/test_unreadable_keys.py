"""A key edited into something that is no key (the seventeenth tester): anyone holding a public
record could set one key field (the header's keys or ``referee_key``, a join's ``key``, a
``replace_player`` action's ``key``) to ``ssh-ed25519``, ``x y`` or a truncated ``ssh-rsa`` line,
and ``verify`` and ``verify DIR`` stopped with an internal error (exit 4), as did ``league``,
which then printed no table at all. Now such a record fails in one sentence (exit 3), and a
league lists it under "Not counted" and goes on. Performed on the record archive's signed
games, each edit made in the record's text as a hand would make it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from clitools import run_inproc, run_script

RECORDS = Path(__file__).resolve().parent.parent / "records"
# (archived record, the text of the line to edit, its kind)
FIELDS = [
    ("v6-referee-acts.yaml", "referee_key: ", "the header's referee_key"),
    ("v6-referee-acts.yaml", "  - ssh-ed25519 ", "the header's key of alice"),
    ("v2-signed.yaml", "  key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBMwTzT", "carol's join key"),
    ("v2-signed.yaml", "  key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIITpi2t",
     "the key of the referee's logged action 1 (replace_player)"),
]
NOT_KEYS = ["ssh-ed25519", "x y", "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7"]


def edited(source: str, start: str, value: str, out: Path) -> Path:
    """The archived record with the first line that starts with ``start`` given ``value``
    as its key (the line's own key name kept)."""
    lines = (RECORDS / source).read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith(start))
    head = start.split(":")[0] + ": " if ":" in start else start[:start.index("-") + 2]
    lines[at] = f"{head}{value}\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(lines))
    return out


@pytest.mark.parametrize("source, start, where", FIELDS)
@pytest.mark.parametrize("value", NOT_KEYS)
def test_a_record_with_a_key_that_is_none_fails_verify_in_one_sentence(
        tmp_path, source, start, where, value):
    game = edited(source, start, value, tmp_path / "game.yaml")
    said = run_inproc("verify", game)
    assert said.code == 3, said.out + said.err
    assert "internal error" not in said.out + said.err
    assert said.out.startswith("FAILED: ")
    if value != "ssh-ed25519" or "logged action" in where:
        assert f"{where} is not an OpenSSH public key" in said.out, said.out
    else:  # a key of one word fails the record's schema first: one sentence too
        assert "is not in the expected form: an OpenSSH public key" in said.out, said.out
    report = json.loads(run_inproc("verify", game, "--format", "json").out)
    assert report["verified"] is False and report["problem"]["code"] == "schema"


def test_a_league_with_such_a_record_lists_it_and_counts_the_others(tmp_path, console_script):
    bad = edited("v2-signed.yaml", FIELDS[3][1], "x y", tmp_path / "league" / "a" / "game.yaml")
    good = tmp_path / "league" / "b" / "game.yaml"
    good.parent.mkdir()
    shutil.copy(RECORDS / "v6-referee-acts.yaml", good)
    for run in (run_inproc, lambda *a: run_script(console_script, *a)):
        table = run("league", tmp_path / "league", "--format", "json")
        assert table.code == 0, table.out + table.err
        data = json.loads(table.out)
        assert [g["file"] for g in data["games"]] == [str(good)]
        [left] = data["not_counted"]
        assert left["file"] == str(bad) and "is not an OpenSSH public key" in left["reason"]
        many = run("verify", tmp_path / "league")
        assert many.code == 3 and "1 verified, 1 failed" in many.out, many.out + many.err
