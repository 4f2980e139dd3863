"""`verify` of many records in one process (folders, several GAMEs, --jobs, --format json), and
verify's fast read: a record as rebis-pbm writes it, with its seed known, is verified without
jsonschema and reported exactly as the schema-checked path reports it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rebis_pbm import app as referee
from rebis_pbm.record import audit

REPO = Path(__file__).resolve().parents[2]
RECORDS = REPO / "tests" / "records"
NAMES = sorted(p.name for p in RECORDS.glob("*.yaml") if not p.name.endswith(".secret.yaml"))


@pytest.mark.parametrize("name", NAMES)
def test_the_fast_report_is_the_checked_report(name, monkeypatch, tmp_path):
    for file in RECORDS.glob(name[:-5] + "*"):
        shutil.copy(file, tmp_path / file.name)
    fast = referee.verify(tmp_path / name).as_dict()
    monkeypatch.setattr(audit, "_as_written", lambda *args: None)
    assert referee.verify(tmp_path / name).as_dict() == fast


def test_an_edited_record_gets_the_same_report_on_both_paths(monkeypatch, tmp_path):
    text = (RECORDS / "finished-addresses.yaml").read_text()
    game = tmp_path / "game.yaml"
    game.write_text(text.replace("turn: 3\n", "turn: 4\n", 1))
    fast = referee.verify(game).as_dict()
    monkeypatch.setattr(audit, "_as_written", lambda *args: None)
    assert referee.verify(game).as_dict() == fast
    assert not fast["verified"]


def league(tmp_path: Path) -> Path:
    """A folder of games, one per subfolder, with secret files, views and a stray YAML file."""
    root = tmp_path / "league"
    for name in NAMES:
        folder = root / name[:-5]
        folder.mkdir(parents=True)
        shutil.copy(RECORDS / name, folder / "game.yaml")
        secret = RECORDS / (name[:-5] + ".secret.yaml")
        if secret.exists():
            shutil.copy(secret, folder / "game.secret.yaml")
        (folder / "game.views").mkdir()
        (folder / "game.views" / "public.yaml").write_text("game: x\n")
    (root / "notes.yaml").write_text("not: a record\n")
    return root


def test_a_folder_is_verified_record_by_record(cli, tmp_path):
    root = league(tmp_path)
    out = cli("verify", root)
    assert out.code == 0, out.err
    lines = out.out.splitlines()
    assert len(lines) == len(NAMES) + 1
    assert all(line.startswith("verified") for line in lines[:-1])
    assert lines[-1] == f"{len(NAMES)} records: {len(NAMES)} verified, 0 failed."


def test_a_failing_record_among_many_is_named_and_exits_3(cli, tmp_path):
    root = league(tmp_path)
    bad = root / "finished-2p" / "game.yaml"
    bad.write_text(bad.read_text().replace("turn: 2\n", "turn: 3\n", 1))
    out = cli("verify", root, "--jobs", "2")
    assert out.code == 3
    assert f"FAILED    {bad}: turn 2" in out.out
    assert out.out.splitlines()[-1].endswith(f"1 failed ({bad}).")
    out = cli("verify", root / "finished-3p" / "game.yaml", bad, "--format", "json")
    assert out.code == 3
    summary = json.loads(out.out)
    assert summary["records"] == 2 and summary["verified"] == 1
    assert summary["failed"] == [str(bad)]
    assert [r["verified"] for r in summary["reports"]] == [True, False]


def test_jobs_do_not_change_the_reports(tmp_path):
    root = league(tmp_path)
    one = [r.as_dict() for r in referee.verify_many([root])]
    assert [r.as_dict() for r in referee.verify_many([root], jobs=3)] == one
    assert len(one) == len(NAMES)


def test_an_unreadable_record_among_many_fails_without_stopping_the_others(tmp_path):
    root = league(tmp_path)
    (root / "unfinished" / "game.secret.yaml").write_text("game: other\nseed: x\n")
    reports = referee.verify_many([root])
    failed = [r for r in reports if not r.verified]
    assert [r.source for r in failed] == [str(root / "unfinished" / "game.yaml")]
    assert len(reports) == len(NAMES)


def test_a_record_given_twice_is_verified_once_and_a_missing_path_is_refused(cli, tmp_path):
    root = league(tmp_path)
    game = root / "finished-4p" / "game.yaml"
    assert len(referee.verify_many([game, root])) == len(NAMES)
    out = cli("verify", game, tmp_path / "missing.yaml")
    assert out.code == 2 and "missing.yaml" in out.err
    out = cli("verify", game, root, "--seed-file", root / "unfinished" / "game.secret.yaml")
    assert out.code == 2 and "--seed-file" in out.err
    (tmp_path / "empty").mkdir()
    out = cli("verify", tmp_path / "empty")
    assert out.code == 2 and "no game record" in out.err


def test_one_game_is_reported_as_before(cli, tmp_path):
    game = league(tmp_path) / "finished-4p" / "game.yaml"
    out = cli("verify", game)
    assert out.code == 0
    assert out.out.startswith("Verified: game ") and f"({game})" in out.out
