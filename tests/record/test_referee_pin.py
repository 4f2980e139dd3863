"""The referee key a reader trusts (issue 27, the thirteenth tester's first finding; docs/audit.md,
"Attacks and defences"): once a game's seed is revealed, all a record holds is public, and a
spectator can rebuild a finished, signed game as a record with no referee key at all (nothing
left to be signed: the joins and moves dropped, an unsigned ``end_game`` blaming a player added,
every digest and ``record_hmac`` recomputed). Such a record is self-consistent, so ``verify``
alone cannot refuse it; what tells it apart is the referee key: ``verify`` now says plainly that
a record names none, and ``verify --referee-pub KEY`` and ``league --referee-pub KEY`` refuse a
record not signed by the referee the reader trusts.

The attack is performed on the archived rebis-pbm/6 game (tests/records/v6-referee-acts.yaml:
finished, its seed revealed, a referee key, every player keyed), from its public text alone.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from clitools import run_inproc, run_script

RECORDS = Path(__file__).resolve().parent.parent / "records"
ARCHIVE = RECORDS / "v6-referee-acts.yaml"
REFEREE_PUB = RECORDS / "keys" / "referee.pub"
HEADER_FIELDS = ("format", "game", "ruleset", "players", "seed_sha256", "deal", "keys", "created",
                 "deadline", "missed", "absence", "grace", "encrypt_views", "referee_recipient")


def canonical(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()


def forged_as_never_dealt(real: Path, out: Path) -> Path:
    """The spectator's forgery, as the tester wrote it: the public record of a finished game
    rebuilt as a game ended before the deal, ``alice did not commit``, no referee key."""
    r = yaml.safe_load(real.read_text())
    for field in ("referee_key", "witness_signature", "actions", "record_hmac"):
        r.pop(field, None)
    r["joins"], r["moves"] = [], []
    r["header_sha256"] = hashlib.sha256(canonical(
        {k: r[k] for k in HEADER_FIELDS if k in r})).hexdigest()
    act = {"after": 0, "action": "end_game", "at": "2026-12-10T00:00:00Z", "joins": 0,
           "reason": "ended before the deal: alice did not commit by 2026-12-10T00:00:00Z"}
    act["chain_sha256"] = hashlib.sha256(canonical(
        {"entry": act, "prev": r["header_sha256"]})).hexdigest()
    document = {"domain": "rebis-pbm/record-digest/v1", "header_sha256": r["header_sha256"],
                "chain_sha256": r["header_sha256"], "actions_sha256": act["chain_sha256"],
                "addresses": r.get("addresses", {}),
                "public_addresses": r.get("public_addresses", False),
                "langs": r.get("langs", {})}
    r["actions"] = [act]
    r["record_hmac"] = hmac.new(f"{r['salt']}:{r['seed']}".encode(), canonical(document),
                                hashlib.sha256).hexdigest()
    r["status"] = {"phase": "join", "waiting": list(r["players"]), "round": 1,
                   "abandoned": True}
    head = "".join(real.read_text().splitlines(keepends=True)[:2])
    out.write_text(head + yaml.safe_dump(r, sort_keys=False, allow_unicode=True))
    return out


@pytest.fixture
def games(tmp_path: Path) -> tuple[Path, Path]:
    """The real record and the forgery, each alone in its own folder (a league of one)."""
    (tmp_path / "real").mkdir()
    (tmp_path / "forged").mkdir()
    real = tmp_path / "real" / "game.yaml"
    shutil.copy(ARCHIVE, real)
    return real, forged_as_never_dealt(real, tmp_path / "forged" / "game.yaml")


def test_the_forgery_is_self_consistent_but_verify_says_it_names_no_referee_key(games):
    real, forged = games
    said = run_inproc("verify", forged)
    # nothing in the forged record contradicts itself: that is why the referee key is the proof
    assert said.code == 0, said.out + said.err
    assert "Referee key: none: the referee signed nothing in this record" in said.out
    report = json.loads(run_inproc("verify", forged, "--format", "json").out)
    assert report["referee_key"] is None
    honest = run_inproc("verify", real)
    assert honest.code == 0
    fingerprint = subprocess.run(["ssh-keygen", "-l", "-f", str(REFEREE_PUB)], text=True,
                                 capture_output=True, check=True).stdout.split()[1]
    assert f"Referee key: {fingerprint} (check it is the one the referee published" in honest.out
    assert json.loads(run_inproc("verify", real, "--format", "json").out)["referee_key"] == \
        fingerprint


@pytest.mark.parametrize("how", ["file", "fingerprint"])
def test_verify_with_the_referees_published_key_refuses_the_forgery(games, how):
    real, forged = games
    expected = str(REFEREE_PUB) if how == "file" else subprocess.run(
        ["ssh-keygen", "-l", "-f", str(REFEREE_PUB)], text=True, capture_output=True,
        check=True).stdout.split()[1]
    refused = run_inproc("verify", forged, "--referee-pub", expected)
    assert refused.code == 3, refused.out
    assert "the record is not signed by the referee key you named" in refused.out
    assert "it names no referee key" in refused.out
    problem = json.loads(run_inproc("verify", forged, "--referee-pub", expected, "--format",
                                    "json").out)["problem"]
    assert problem["code"] == "referee" and problem["found"] == "none"
    assert run_inproc("verify", real, "--referee-pub", expected).code == 0


def test_verify_with_another_referees_key_refuses_the_real_record(games, tmp_path):
    real, _ = games
    other = RECORDS / "keys" / "alice.pub"  # a key, but not this game's referee's
    refused = run_inproc("verify", real, "--referee-pub", other)
    assert refused.code == 3 and "it names another referee key" in refused.out


def test_many_records_each_pinned(games):
    real, _ = games
    said = run_inproc("verify", real.parent.parent, "--referee-pub", REFEREE_PUB)
    assert said.code == 3
    assert "1 verified, 1 failed" in said.out and "forged" in said.out.splitlines()[-1]


def test_league_with_its_referee_counts_only_the_records_it_signed(games):
    real, forged = games
    table = json.loads(run_inproc("league", real.parent.parent, "--format", "json").out)
    # without the referee's key, the forgery is a record of game g too, whose history is not
    # the real one's: the league cannot tell which is the game, so neither counts
    assert table["games"] == [] and len(table["not_counted"]) == 2
    assert all("disagree: neither's history extends the other's; none is counted" in n["reason"]
               for n in table["not_counted"])
    pinned = json.loads(run_inproc("league", real.parent.parent, "--referee-pub", REFEREE_PUB,
                                   "--format", "json").out)
    [kept] = pinned["games"]
    assert kept["file"] == str(real)
    [left] = pinned["not_counted"]
    assert left["file"] == str(forged) and "not signed by the referee key you named" in \
        left["reason"]


@pytest.mark.parametrize("given, said", [
    ("SHA256:short", "is not a key fingerprint"),
    ("no-such-file.pub", "the referee's public key cannot be read"),
])
def test_a_referee_key_that_is_none_is_refused_in_one_sentence(games, given, said):
    real, _ = games
    done = run_inproc("verify", real, "--referee-pub", given)
    assert done.code == 2 and said in done.err and "Traceback" not in done.err


def test_the_installed_command_takes_the_referee_key(games, console_script):
    real, forged = games
    done = run_script(console_script, "verify", forged, "--referee-pub", REFEREE_PUB)
    assert done.code == 3 and "it names no referee key" in done.out
    assert run_script(console_script, "verify", real, "--referee-pub", REFEREE_PUB).code == 0
