"""The two rounds of a rebis-pbm/5 fair deal (docs/shuffle.md, "Two rounds"; issue 27 item 3):
each player's commitment first, their join (the entropy it hides) only when every commitment is
recorded. Each attack of the issue is performed here and seen to fail: the referee grinding
join templates, the last player with the seed's holder trying several joins, a commitment
copied to another seat, a key logged by replace-player before the deal, a join replayed into
another history, a join sent in round 1.

The keys are made and the files signed by the real ``ssh-keygen`` (tests/sshkeys.py); the
player's own command is the real ``rebis-pbm play``.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
import yaml

from clitools import run_inproc
from rebis_pbm import app as referee
from rebis_pbm.record.commitments import commitment_of
from sshkeys import needs_ssh, ssh_key, ssh_sign

PLAYERS = ("ann", "ben")
FAIR = "Deal: fair (two rounds, every join signed by a key registered at new)."


def new_game(folder: Path, keys: dict[str, Path] | None = None, game_id: str = "tr",
             *extra: str) -> Path:
    """A rebis-pbm/5 fair deal of ann and ben (the keys of ``keys`` registered at new)."""
    folder.mkdir(parents=True, exist_ok=True)
    game = folder / "game.yaml"
    args = ["new", game, "--seed", "two rounds test", "--insecure-seed", "--game-id", game_id,
            *extra]
    for p in PLAYERS:
        args += ["--player", p]
    for p, key in (keys or {}).items():
        args += ["--key", f"{p}={key}.pub"]
    made = run_inproc(*args)
    assert made.code == 0, made.err
    assert yaml.safe_load(game.read_text())["format"] == "rebis-pbm/6"
    return game


def play_join(game: Path, player: str, where: Path, key: Path | None = None) -> Path:
    """``player`` runs ``rebis-pbm play`` on their join-phase view in ``where`` (their own
    machine): the commitment in round 1, the join in round 2. Returns the move file."""
    where.mkdir(parents=True, exist_ok=True)
    view = where / f"{player}-view.yaml"
    shown = run_inproc("view", game, "--player", player, "--format", "yaml")
    assert shown.code == 0, shown.err
    view.write_text(shown.out)
    args = ["play", view, "--yes", "--out", where] + (["--key", key] if key else [])
    done = run_inproc(*args)
    assert done.code == 0, done.out + done.err
    return where / f"turn-000-{player}.yaml"


def keydir(tmp: Path) -> Path:
    """Where the players' SSH keys are made (apart from their own folders)."""
    (tmp / "keys").mkdir(exist_ok=True)
    return tmp / "keys"


def apply(game: Path, move: Path, *extra):
    return run_inproc("apply", game, move, *extra)


def commit_all(game: Path, tmp: Path, keys: dict[str, Path] | None = None) -> None:
    for p in PLAYERS:
        done = apply(game, play_join(game, p, tmp / p, (keys or {}).get(p)))
        assert done.code == 0, done.err


def join_text(tmp: Path, player: str, game_id: str = "tr") -> str:
    return (tmp / player / f"{game_id}-{player}.join-text").read_text()


def verify_text(game: Path) -> tuple[str, dict]:
    text, data = run_inproc("verify", game), run_inproc("verify", game, "--format", "json")
    assert text.code == 0 and data.code == 0, text.out + text.err
    return text.out, json.loads(data.out)


@needs_ssh
def test_a_two_round_deal_signed_by_keys_registered_at_new_is_fair(tmp_path):
    keys = {p: ssh_key(keydir(tmp_path), p) for p in PLAYERS}
    game = new_game(tmp_path / "ref", keys)
    assert referee.open_game(game).record.join_round() == 1
    commit_all(game, tmp_path, keys)
    record = referee.open_game(game).record
    assert record.join_round() == 2 and record.joining()
    assert all(j.commitment and not j.entropy for j in record.joins)
    for p in PLAYERS:  # the join text was kept private (0600), beside the move
        kept = tmp_path / p / f"tr-{p}.join-text"
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600 and len(kept.read_text()) == 32
        assert commitment_of("tr", p, kept.read_text()) == next(
            j.commitment for j in record.joins if j.player == p)
    for p in PLAYERS:
        move = play_join(game, p, tmp_path / p, keys[p])
        doc = yaml.safe_load(move.read_text())
        assert doc["join"] == join_text(tmp_path, p)
        assert doc["after"] == record.joins[-1].chain_sha256
        done = apply(game, move)
        assert done.code == 0, done.err
    assert not referee.open_game(game).record.joining()  # dealt
    text, report = verify_text(game)
    assert FAIR in text, text
    assert "unsigned_joins" not in report and report["deal_from"] == ["referee", *PLAYERS]
    assert all(len(line) < 100 for line in text.splitlines() if line.startswith("Deal"))


def test_an_unsigned_two_round_deal_is_not_confirmed_in_one_short_sentence(tmp_path):
    game = new_game(tmp_path / "ref")
    text, _ = verify_text(game)
    assert "Deal: not dealt yet, round 1 of 2, waiting for commitments by ann, ben." in text
    commit_all(game, tmp_path)
    text, report = verify_text(game)
    assert report["status"] == {"phase": "join", "waiting": ["ann", "ben"], "round": 2}
    assert "Deal: not dealt yet, round 2 of 2, waiting for joins by ann, ben." in text
    for p in PLAYERS:
        assert apply(game, play_join(game, p, tmp_path / p)).code == 0
    text, report = verify_text(game)
    assert ("Deal: not confirmed for ann, ben (unsigned or keys registered later): they must "
            "check their joins in the record.") in text
    assert report["unsigned_joins"] == ["ann", "ben"]


def test_the_views_and_the_template_say_the_round_and_hold_no_entropy(tmp_path):
    """The referee's join template carries no entropy (the referee could grind templates):
    round 1 says to run the player's own command; round 2 names the commitments (after)."""
    game = new_game(tmp_path / "ref", None, "tr", "--lang", "ben=fr")
    listing = run_inproc("moves", game, "--player", "ann").out
    doc = yaml.safe_load(listing)
    assert "join" not in doc and doc["commitment"] == "WRITTEN BY rebis-pbm play ON YOUR VIEW"
    assert "rebis-pbm play VIEW.yaml" in listing and "Add  key:" in listing
    view = run_inproc("view", game, "--player", "ann").out
    assert "The deal, round 1 of 2, waits for commitments: ann, ben." in view
    french = run_inproc("view", game, "--player", "ben", "--lang", "fr").out
    assert "La distribution, tour 1 sur 2, attend les engagements\u00a0: ann, ben." in french
    commit_all(game, tmp_path)
    listing = run_inproc("moves", game, "--player", "ann").out
    doc = yaml.safe_load(listing)
    assert doc["after"] == referee.open_game(game).record.joins[-1].chain_sha256
    assert doc["join"] == "WRITTEN BY rebis-pbm play ON YOUR VIEW"
    assert "The deal, round 2 of 2, waits for joins: ann, ben." in run_inproc(
        "view", game, "--player", "ann").out
    yaml_view = yaml.safe_load(run_inproc("view", game, "--player", "ann", "--format",
                                          "yaml").out)
    assert yaml_view["phase"] == "join" and yaml_view["round"] == 2
    assert yaml_view["waiting"] == ["ann", "ben"]


@needs_ssh
def test_the_template_offers_no_key_to_a_player_who_registered_one(tmp_path):
    keys = {"ann": ssh_key(keydir(tmp_path), "ann")}
    game = new_game(tmp_path / "ref", keys)
    assert "Add  key:" not in run_inproc("moves", game, "--player", "ann").out
    assert "Add  key:" in run_inproc("moves", game, "--player", "ben").out


def test_the_referee_grinding_templates_gets_nothing_a_filled_join_is_no_commitment(tmp_path):
    """The attack of docs/git.md's old templates: the referee fills join: in the template it
    sends, trying texts until the deal suits it. A join in round 1 is refused, and the
    template the referee sends holds no entropy to grind."""
    game = new_game(tmp_path / "ref")
    before = game.read_bytes()
    header = yaml.safe_load(game.read_text())["header_sha256"]
    forged = tmp_path / "forged.yaml"
    forged.write_text(f"game: tr\nplayer: ann\nheader_sha256: {header}\njoin: ground 1551\n")
    refused = apply(game, forged)
    assert refused.code == 1 and "the deal is in its first round" in refused.err
    assert "send your commitment first" in refused.err
    assert game.read_bytes() == before


def test_the_last_player_with_the_seed_holder_cannot_try_several_joins(tmp_path):
    """ben joins last; with the seed's holder he would try joins until the deal suits him: his
    commitment, recorded before any join, refuses every text but the one it hashed."""
    game = new_game(tmp_path / "ref")
    commit_all(game, tmp_path)
    assert apply(game, play_join(game, "ann", tmp_path / "ann")).code == 0
    after = referee.open_game(game).record.joins[1].chain_sha256
    before = game.read_bytes()
    for n in range(5):
        other = tmp_path / f"try-{n}.yaml"
        other.write_text(f"game: tr\nplayer: ben\nafter: {after}\njoin: try {n}\n")
        refused = apply(game, other)
        assert refused.code == 1, refused.err
        assert "this join does not match the commitment you sent" in refused.err
    assert game.read_bytes() == before
    assert apply(game, play_join(game, "ben", tmp_path / "ben")).code == 0


def test_a_commitment_copied_from_another_seat_cannot_be_revealed(tmp_path):
    """ben copies ann's commitment (hoping to copy her join later and cancel her entropy): the
    commitment binds the game and the player, so ann's text does not open it for ben."""
    game = new_game(tmp_path / "ref")
    ann = play_join(game, "ann", tmp_path / "ann")
    assert apply(game, ann).code == 0
    copied = tmp_path / "ben-copy.yaml"
    copied.write_text(ann.read_text().replace("player: ann", "player: ben"))
    assert apply(game, copied).code == 0  # a commitment is opaque until its join
    assert apply(game, play_join(game, "ann", tmp_path / "ann")).code == 0
    after = referee.open_game(game).record.joins[1].chain_sha256
    reveal = tmp_path / "ben-join.yaml"
    reveal.write_text(f"game: tr\nplayer: ben\nafter: {after}\n"
                      f"join: {join_text(tmp_path, 'ann')}\n")
    refused = apply(game, reveal)
    assert refused.code == 1 and "does not match the commitment" in refused.err
    assert commitment_of("tr", "ben", join_text(tmp_path, "ann")) != commitment_of(
        "tr", "ann", join_text(tmp_path, "ann"))
    assert commitment_of("other", "ann", "x") != commitment_of("tr", "ann", "x")


@needs_ssh
def test_a_key_logged_by_replace_player_before_the_deal_is_not_confirmed(tmp_path):
    """The attack of issue 27: replace-player --key before the deal, then ann's commitment and
    join signed by the referee's own key. The record verifies, but not as a fair deal for ann."""
    keys = {p: ssh_key(keydir(tmp_path), p) for p in PLAYERS}
    referee_key = ssh_key(keydir(tmp_path), "referee_own")
    game = new_game(tmp_path / "ref", keys)
    logged = run_inproc("replace-player", game, "--player", "ann", "--key",
                        f"{referee_key}.pub", "--reason", "ann lost her key")
    assert logged.code == 0, logged.err
    signers = {"ann": referee_key, "ben": keys["ben"]}
    commit_all(game, tmp_path, signers)
    for p in PLAYERS:
        assert apply(game, play_join(game, p, tmp_path / p, signers[p])).code == 0
    text, report = verify_text(game)
    assert report["verified"] and report["unsigned_joins"] == ["ann"]
    assert "Deal: not confirmed for ann (unsigned or keys registered later)" in text
    assert FAIR not in text


@needs_ssh
def test_a_join_replayed_into_another_history_is_refused(tmp_path):
    """ann's signed join names the commitments it answers (after:): carried into another game
    of the same id whose commitments differ, it is refused in one sentence."""
    keys = {p: ssh_key(keydir(tmp_path), p) for p in PLAYERS}
    first = new_game(tmp_path / "first", keys)
    commit_all(first, tmp_path, keys)
    signed = play_join(first, "ann", tmp_path / "ann", keys["ann"])
    second = new_game(tmp_path / "second", keys)
    (tmp_path / "ann2").mkdir()  # ann commits to the same text in the second game; ben not
    shutil.copy(tmp_path / "ann" / "tr-ann.join-text", tmp_path / "ann2")
    assert apply(second, play_join(second, "ann", tmp_path / "ann2", keys["ann"])).code == 0
    assert apply(second, play_join(second, "ben", tmp_path / "ben2", keys["ben"])).code == 0
    before = second.read_bytes()
    replayed = apply(second, signed)
    assert replayed.code == 1, replayed.err
    assert "this join answers another history" in replayed.err
    assert second.read_bytes() == before
    unsigned = tmp_path / "bare.yaml"  # without after:, a signed join is refused as well
    unsigned.write_text(f"game: tr\nplayer: ann\njoin: {join_text(tmp_path, 'ann')}\n")
    Path(f"{unsigned}.sig").write_bytes(ssh_sign(keys["ann"], unsigned.read_bytes()))
    bare = apply(second, unsigned)
    assert bare.code == 1 and "must name the commitments it answers" in bare.err


def test_a_second_commitment_and_a_commitment_in_round_2_are_refused(tmp_path):
    game = new_game(tmp_path / "ref")
    ann = play_join(game, "ann", tmp_path / "ann")
    assert apply(game, ann).code == 0
    assert "already committed; nothing changed" in apply(game, ann).out  # delivered twice
    other = tmp_path / "again.yaml"
    other.write_text(ann.read_text().replace(
        yaml.safe_load(ann.read_text())["commitment"], "a" * 64))
    second = apply(game, other)
    assert second.code == 1 and "ann has sent their commitment already" in second.err
    assert apply(game, play_join(game, "ben", tmp_path / "ben")).code == 0
    late = apply(game, other)
    assert late.code == 1 and "the deal is in its second round" in late.err


def test_the_plain_way_printf_and_sha256sum_makes_the_same_commitment(tmp_path):
    """docs/shuffle.md's way for a player without rebis-pbm play: the commitment is the
    SHA-256 of 'rebis-pbm-commitment', the game id, the name and the text, one a line."""
    if shutil.which("sha256sum") is None:
        pytest.skip("sha256sum (coreutils) is not installed")
    game = new_game(tmp_path / "ref")
    text = "my own words, 7 dice rolls 3 1 4 1 5 9 2"
    made = subprocess.run(["sh", "-c", "printf '%s\\n%s\\n%s\\n%s' rebis-pbm-commitment "
                           "\"$GAME\" \"$NAME\" \"$TEXT\" | sha256sum"],
                          env={**os.environ, "GAME": "tr", "NAME": "ann", "TEXT": text},
                          capture_output=True, check=True, text=True)
    digest = made.stdout.split()[0]
    assert digest == commitment_of("tr", "ann", text)
    header = yaml.safe_load(game.read_text())["header_sha256"]
    move = tmp_path / "ann.yaml"
    move.write_text(f"game: tr\nplayer: ann\nheader_sha256: {header}\ncommitment: {digest}\n")
    assert apply(game, move).code == 0
    assert apply(game, play_join(game, "ben", tmp_path / "ben")).code == 0
    after = referee.open_game(game).record.joins[-1].chain_sha256
    move.write_text(f"game: tr\nplayer: ann\nafter: {after}\njoin: {text}\n")
    assert apply(game, move).code == 0


def test_play_in_round_2_without_the_kept_text_says_where_it_should_be(tmp_path):
    game = new_game(tmp_path / "ref")
    commit_all(game, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    view = elsewhere / "ann.yaml"
    view.write_text(run_inproc("view", game, "--player", "ann", "--format", "yaml").out)
    done = run_inproc("play", view, "--yes", "--out", elsewhere)
    assert done.code == 1 and "your join text is not there" in done.err


def _deadline_game(tmp: Path) -> Path:
    return new_game(tmp / "ref", None, "tr", "--deadline", "24h", "--grace", "1h", "--now",
                    "2025-01-01T00:00:00Z")


def test_a_player_who_never_commits_ends_the_game_before_the_deal(tmp_path):
    """docs/deadlines.md, "The join phase": round 1 runs from new; within the grace period the
    player is late; after it, tick ends the game before the deal (a referee act), and nobody
    saw a card."""
    game = _deadline_game(tmp_path)
    ann = play_join(game, "ann", tmp_path / "ann")
    assert apply(game, ann, "--now", "2025-01-01T10:00:00Z").code == 0
    quiet = run_inproc("tick", game, "--now", "2025-01-01T12:00:00Z")
    assert quiet.code == 0 and "No deadline has passed" in quiet.out
    late = run_inproc("tick", game, "--now", "2025-01-02T00:30:00Z")
    assert late.code == 0 and "ben is late" in late.out
    ended = run_inproc("tick", game, "--now", "2025-01-02T01:01:00Z")
    assert ended.code == 0, ended.err
    assert ("ended before the deal: ben did not commit by 2025-01-02T00:00:00Z"
            in ended.out)
    record = referee.open_game(game).record
    assert record.seed is not None and record.joining()
    assert record.actions[-1]["action"] == "end_game"
    text, _ = verify_text(game)
    assert "Deal: none (the game ended before the deal; nobody saw a card)." in text
    league = json.loads(run_inproc("league", game.parent, "--format", "json").out)
    assert [g["state"] for g in league["games"]] == ["abandoned"] and not league["in_progress"]
    header = yaml.safe_load(game.read_text())["header_sha256"]
    late_one = tmp_path / "ben.yaml"
    late_one.write_text(f"game: tr\nplayer: ben\nheader_sha256: {header}\n"
                        f"commitment: {commitment_of('tr', 'ben', 'too late')}\n")
    refused = apply(game, late_one)
    assert refused.code == 1 and "abandoned" in refused.err


def test_round_2_runs_from_the_last_commitment_and_turn_1_from_the_deal(tmp_path):
    game = _deadline_game(tmp_path)
    for n, p in enumerate(PLAYERS):
        move = play_join(game, p, tmp_path / p)
        assert apply(game, move, "--now", f"2025-01-01T1{n}:00:00Z").code == 0
    # the last commitment at 11:00: round 2's deadline is the next day at 11:00
    assert "No deadline has passed" in run_inproc(
        "tick", game, "--now", "2025-01-02T10:59:00Z").out
    assert "is late" in run_inproc("tick", game, "--now", "2025-01-02T11:30:00Z").out
    assert apply(game, play_join(game, "ann", tmp_path / "ann"),
                 "--now", "2025-01-02T11:40:00Z").code == 0
    assert apply(game, play_join(game, "ben", tmp_path / "ben"),
                 "--now", "2025-01-02T11:50:00Z").code == 0
    record = referee.open_game(game).record
    assert not record.joining() and record.joins[-1].at == "2025-01-02T11:50:00Z"
    from rebis_pbm.record.deadlines import deadline_of
    assert deadline_of(record) == "2025-01-03T11:50:00Z"  # turn 1 from the deal
    assert run_inproc("verify", game).code == 0


def test_a_player_who_never_reveals_ends_the_game_and_no_deal_is_made(tmp_path):
    game = _deadline_game(tmp_path)
    for p in PLAYERS:
        assert apply(game, play_join(game, p, tmp_path / p),
                     "--now", "2025-01-01T10:00:00Z").code == 0
    assert apply(game, play_join(game, "ann", tmp_path / "ann"),
                 "--now", "2025-01-01T12:00:00Z").code == 0
    ended = run_inproc("tick", game, "--now", "2025-01-02T11:01:00Z")
    assert "ended before the deal: ben did not reveal their join by 2025-01-02T10:00:00Z" \
        in ended.out
    record = referee.open_game(game).record
    assert record.seed is not None and record.joining() and not record.moves


@needs_ssh
def test_a_game_ended_before_the_deal_is_the_referees_signed_act(tmp_path):
    """In a game with a referee key, the end of the join phase is an act the referee signs
    (docs/audit.md, "The referee's signatures"); without the key tick writes nothing."""
    referee_key = ssh_key(keydir(tmp_path), "referee")
    game = new_game(tmp_path / "ref", None, "tr", "--deadline", "1h", "--now",
                    "2025-01-01T00:00:00Z", "--referee-key", str(referee_key))
    without = run_inproc("tick", game, "--now", "2025-01-01T02:00:00Z")
    assert without.code != 0 and referee.open_game(game).record.seed is None
    ended = run_inproc("tick", game, "--now", "2025-01-01T02:00:00Z", "--referee-key",
                       referee_key)
    assert ended.code == 0, ended.err
    assert "ann, ben did not commit" in ended.out
    act = referee.open_game(game).record.actions[-1]
    assert act["action"] == "end_game" and "referee_signature" in act
    text, report = verify_text(game)
    assert report["verified"] and "the referee ended the game" in text


@needs_ssh
def test_a_commitment_signed_by_the_key_it_brings_is_not_confirmed(tmp_path):
    """A key the commitment itself brings (key:) may be the referee's: not confirmed."""
    keys = {p: ssh_key(keydir(tmp_path), p) for p in PLAYERS}
    game = new_game(tmp_path / "ref", {"ben": keys["ben"]})
    header = yaml.safe_load(game.read_text())["header_sha256"]
    move = tmp_path / "ann.yaml"
    move.write_text(f"game: tr\nplayer: ann\nheader_sha256: {header}\n"
                    f"commitment: {commitment_of('tr', 'ann', 'ann text')}\n"
                    "key: " + " ".join(Path(f"{keys['ann']}.pub").read_text().split()[:2]) + "\n")
    Path(f"{move}.sig").write_bytes(ssh_sign(keys["ann"], move.read_bytes()))
    assert apply(game, move).code == 0
    assert apply(game, play_join(game, "ben", tmp_path / "ben", keys["ben"])).code == 0
    after = referee.open_game(game).record.joins[-1].chain_sha256
    move = tmp_path / "ann-join.yaml"
    move.write_text(f"game: tr\nplayer: ann\nafter: {after}\njoin: ann text\n")
    Path(f"{move}.sig").write_bytes(ssh_sign(keys["ann"], move.read_bytes()))
    assert apply(game, move).code == 0
    assert apply(game, play_join(game, "ben", tmp_path / "ben", keys["ben"])).code == 0
    text, report = verify_text(game)
    assert report["unsigned_joins"] == ["ann"]
    assert "Deal: not confirmed for ann (unsigned or keys registered later)" in text


NOW = "2025-01-01T01:00:00Z"  # every step of the game below, a day before any deadline


def _signed_deal_game(tmp: Path) -> tuple[Path, Path, dict[str, Path]]:
    """A rebis-pbm/5 fair deal of ann and ben, keys registered at new, a referee key and a
    day's deadline; returns (record, the referee's key, the players' keys)."""
    keys = {p: ssh_key(keydir(tmp), p) for p in PLAYERS}
    referee_key = ssh_key(keydir(tmp), "referee")
    game = new_game(tmp / "ref", keys, "tr", "--deadline", "1d", "--now",
                    "2025-01-01T00:00:00Z", "--referee-key", str(referee_key))
    return game, referee_key, keys


def _act(game: Path, kind: str, tmp: Path, referee_key: Path,
         signers: dict[str, Path] | None = None) -> None:
    """The referee's act ``kind`` logged and signed during the join phase (a new key for ben
    goes into ``signers``)."""
    new_key = None
    if kind == "extend":
        args = ["extend", game, "--by", "1d"]
    elif kind == "address":
        args = ["replace-player", game, "--player", "ben", "--address", "ben@example.org"]
    else:
        new_key = ssh_key(keydir(tmp), f"ben-new-{len(list(keydir(tmp).iterdir()))}")
        args = ["replace-player", game, "--player", "ben", "--key", f"{new_key}.pub"]
    done = run_inproc(*args, "--now", NOW, "--referee-key", referee_key)
    assert done.code == 0, done.err
    if new_key is not None and signers is not None:
        signers["ben"] = new_key


@needs_ssh
@pytest.mark.parametrize("kind", ["extend", "address", "key"])
@pytest.mark.parametrize("when", ["before any commitment", "round 1", "round 2"])
def test_an_act_logged_in_the_join_phase_still_verifies_once_dealt(tmp_path, kind, when):
    """The attack: an honest referee's act during the join phase (extend, replace-player
    --address or --key) signed over the join-phase entries as they then were; once the deal
    happened verify took it for a forgery (exit 3) and the game was dead. The act now counts
    the join-phase entries before it (``joins``), and the game deals, plays and verifies."""
    game, referee_key, keys = _signed_deal_game(tmp_path)
    signers = dict(keys)
    if when == "before any commitment":
        _act(game, kind, tmp_path, referee_key, signers)
    ann = play_join(game, "ann", tmp_path / "ann", keys["ann"])
    assert apply(game, ann, "--referee-key", referee_key, "--now", NOW).code == 0
    if when == "round 1":
        _act(game, kind, tmp_path, referee_key, signers)
    ben = play_join(game, "ben", tmp_path / "ben", signers["ben"])
    assert apply(game, ben, "--referee-key", referee_key, "--now", NOW).code == 0
    if when == "round 2":
        _act(game, kind, tmp_path, referee_key, signers)
    record = referee.open_game(game).record
    assert record.actions[0]["joins"] == {"before any commitment": 0, "round 1": 1,
                                          "round 2": 2}[when]
    for p in PLAYERS:
        done = apply(game, play_join(game, p, tmp_path / p, signers[p]), "--referee-key",
                     referee_key, "--now", NOW)
        assert done.code == 0, done.err
    record, replay, _ = referee.open_game(game)
    assert not record.joining() and not record.moves
    _, move = referee.bot_move(game, replay.state.player_to_move, "random", seed="x")
    path = tmp_path / "turn-001.yaml"
    path.write_text(json.dumps({"game": record.game, "after": record.last_digest(),
                                **move.as_dict()}))
    Path(f"{path}.sig").write_bytes(ssh_sign(keys[move.player], path.read_bytes()))
    played = apply(game, path, "--referee-key", referee_key, "--now", NOW)
    assert played.code == 0, played.err
    text, report = verify_text(game)
    assert report["verified"], text
    assert run_inproc("tick", game, "--now", "2025-01-01T01:30:00Z").code == 0


@needs_ssh
def test_an_acts_join_count_edited_fails_verify(tmp_path, monkeypatch):
    """The count is covered by the act's chain digest and the referee's signature: moving the
    act to another point of the join phase is caught."""
    game, referee_key, keys = _signed_deal_game(tmp_path)
    _act(game, "extend", tmp_path, referee_key)
    monkeypatch.setenv("REBIS_PBM_REFEREE_KEY", str(referee_key))
    commit_all(game, tmp_path, keys)
    assert run_inproc("verify", game).code == 0
    doc = yaml.safe_load(game.read_text())
    doc["actions"][0]["joins"] = 1
    game.write_text(yaml.safe_dump(doc, sort_keys=False))
    assert run_inproc("verify", game).code == 3


def _pub(key: Path) -> str:
    return " ".join(Path(f"{key}.pub").read_text().split()[:2])


@needs_ssh
def test_a_commitment_bringing_another_key_for_a_registered_player_is_refused(tmp_path):
    """The attack: ben, whose key was registered at new, sends a commitment with key: eve's
    key, signed with his own; then his join signed with eve's key, which apply took and verify
    then refused (exit 3), for good. The commitment is now refused, in one sentence, and
    nothing is written."""
    keys = {p: ssh_key(keydir(tmp_path), p) for p in (*PLAYERS, "eve")}
    game = new_game(tmp_path / "ref", {p: keys[p] for p in PLAYERS})
    header = yaml.safe_load(game.read_text())["header_sha256"]
    move = tmp_path / "ben.yaml"
    move.write_text(f"game: tr\nplayer: ben\nheader_sha256: {header}\n"
                    f"commitment: {commitment_of('tr', 'ben', 'ben text')}\n"
                    f"key: {_pub(keys['eve'])}\n")
    Path(f"{move}.sig").write_bytes(ssh_sign(keys["ben"], move.read_bytes()))
    before = game.read_bytes()
    refused = apply(game, move)
    assert refused.code == 1
    assert "ben has a key registered already, so their commitment brings no other key" in (
        refused.err)
    assert len(refused.err.strip().splitlines()) == 1 and game.read_bytes() == before


@needs_ssh
def test_a_join_signed_by_a_key_verify_would_refuse_is_refused_by_apply(tmp_path):
    """apply and verify judge a join's signature by the same keys (join_phase_keys): ben's
    join signed by any key but his registered one is refused at apply; his own is taken and
    the record verifies as a fair deal."""
    keys = {p: ssh_key(keydir(tmp_path), p) for p in (*PLAYERS, "eve")}
    game = new_game(tmp_path / "ref", {p: keys[p] for p in PLAYERS})
    commit_all(game, tmp_path, keys)
    assert apply(game, play_join(game, "ann", tmp_path / "ann", keys["ann"])).code == 0
    after = referee.open_game(game).record.joins[1].chain_sha256
    move = tmp_path / "ben-join.yaml"
    move.write_text(f"game: tr\nplayer: ben\nafter: {after}\njoin: {join_text(tmp_path, 'ben')}\n")
    Path(f"{move}.sig").write_bytes(ssh_sign(keys["eve"], move.read_bytes()))
    refused = apply(game, move)
    assert refused.code == 1 and "does not check against ben's key" in refused.err
    assert referee.open_game(game).record.joining()
    Path(f"{move}.sig").write_bytes(ssh_sign(keys["ben"], move.read_bytes()))
    assert apply(game, move).code == 0
    text, _ = verify_text(game)
    assert FAIR in text


def _commitment_file(path: Path, game: Path, player: str, text: str,
                     key: Path | None = None) -> Path:
    header = yaml.safe_load(game.read_text())["header_sha256"]
    path.write_text(f"game: tr\nplayer: {player}\nheader_sha256: {header}\n"
                    f"commitment: {commitment_of('tr', player, text)}\n")
    if key is not None:
        Path(f"{path}.sig").write_bytes(ssh_sign(key, path.read_bytes()))
    return path


def test_a_commitment_copied_from_another_game_is_refused_in_round_2_too(tmp_path):
    """The attack: a commitment of another game of the same id (the same text, so the same
    commitment) applied in round 2 read "ann already committed; nothing changed" (exit 0),
    where round 1 refused it by its header: the header is now checked first, in both rounds."""
    first = new_game(tmp_path / "a")
    second = new_game(tmp_path / "b", None, "tr", "--rule", "gold=1")
    assert yaml.safe_load(first.read_text())["header_sha256"] != yaml.safe_load(
        second.read_text())["header_sha256"]
    copied = _commitment_file(tmp_path / "copied.yaml", first, "ann", "same text")
    assert apply(second, _commitment_file(tmp_path / "own.yaml", second, "ann",
                                          "same text")).code == 0
    for round_ in (1, 2):
        if round_ == 2:
            assert apply(second, _commitment_file(tmp_path / "ben.yaml", second, "ben",
                                                  "ben text")).code == 0
        assert referee.open_game(second).record.join_round() == round_
        before = second.read_bytes()
        refused = apply(second, copied)
        assert refused.code == 1, refused.out + refused.err
        assert "this join names another game's header" in refused.err
        assert second.read_bytes() == before


@needs_ssh
def test_verify_names_the_key_that_signed_each_players_commitment_and_join(tmp_path):
    """The attack: two keys registered for ben at new (a --key file of two lines, one the
    referee's); the referee signs ben's commitment and join with its own and verify said
    "Deal: fair". verify now names, for each player, the fingerprint of the key that signed
    their entries, and ben's own commitment is refused naming the key already used."""
    keys = {p: ssh_key(keydir(tmp_path), p) for p in (*PLAYERS, "referee_own")}
    both = keydir(tmp_path) / "ben-two.pub"
    both.write_text(Path(f"{keys['ben']}.pub").read_text()
                    + Path(f"{keys['referee_own']}.pub").read_text())
    game = tmp_path / "ref" / "game.yaml"
    game.parent.mkdir()
    made = run_inproc("new", game, "--seed", "two rounds test", "--insecure-seed", "--game-id",
                      "tr", "--player", "ann", "--player", "ben", "--key",
                      f"ann={keys['ann']}.pub", "--key", f"ben={both}")
    assert made.code == 0, made.err
    forged = _commitment_file(tmp_path / "forged.yaml", game, "ben", "the referee's text",
                              keys["referee_own"])
    assert apply(game, forged).code == 0
    own = _commitment_file(tmp_path / "own.yaml", game, "ben", "ben's text", keys["ben"])
    refused = apply(game, own)
    fp = subprocess.run(["ssh-keygen", "-l", "-f", f"{keys['referee_own']}.pub"],
                        capture_output=True, text=True, check=True).stdout.split()[1]
    assert refused.code == 1
    assert f"a commitment in ben's name, signed by key {fp}, is already recorded" in refused.err
    assert apply(game, play_join(game, "ann", tmp_path / "ann", keys["ann"])).code == 0
    assert apply(game, play_join(game, "ann", tmp_path / "ann", keys["ann"])).code == 0
    after = referee.open_game(game).record.joins[1].chain_sha256
    join = tmp_path / "forged-join.yaml"
    join.write_text(f"game: tr\nplayer: ben\nafter: {after}\njoin: the referee's text\n")
    Path(f"{join}.sig").write_bytes(ssh_sign(keys["referee_own"], join.read_bytes()))
    assert apply(game, join).code == 0
    text, report = verify_text(game)
    ann_fp = subprocess.run(["ssh-keygen", "-l", "-f", f"{keys['ann']}.pub"],
                            capture_output=True, text=True, check=True).stdout.split()[1]
    assert report["deal_signers"] == {"ann": [ann_fp], "ben": [fp]}
    assert f"  ben's commitment and join: key {fp}" in text
    assert f"  ann's commitment and join: key {ann_fp}" in text


def test_an_extension_lengthens_the_round_it_is_logged_in_not_the_next(tmp_path):
    """docs/deadlines.md, "The join phase": an extend in round 1 moves round 1's deadline; round
    2 and turn 1 keep their own clocks (an extension logged in round 1 gave turn 1 a day more)."""
    from rebis_pbm.record.deadlines import deadline_of
    game = _deadline_game(tmp_path)
    extended = run_inproc("extend", game, "--by", "24h", "--now", "2025-01-01T05:00:00Z")
    assert extended.code == 0, extended.err
    assert deadline_of(referee.open_game(game).record) == "2025-01-03T00:00:00Z"  # round 1
    for n, p in enumerate(PLAYERS):
        move = play_join(game, p, tmp_path / p)
        assert apply(game, move, "--now", f"2025-01-01T1{n}:00:00Z").code == 0
    assert deadline_of(referee.open_game(game).record) == "2025-01-02T11:00:00Z"  # round 2
    assert run_inproc("extend", game, "--by", "2h", "--now", "2025-01-01T12:00:00Z").code == 0
    assert deadline_of(referee.open_game(game).record) == "2025-01-02T13:00:00Z"
    for n, p in enumerate(PLAYERS):
        assert apply(game, play_join(game, p, tmp_path / p),
                     "--now", f"2025-01-01T1{3 + n}:00:00Z").code == 0
    record = referee.open_game(game).record
    assert not record.joining()
    assert deadline_of(record) == "2025-01-02T14:00:00Z"  # turn 1: 24 h from the deal, no more
    assert run_inproc("verify", game).code == 0


def test_attack_a_commitment_naming_a_made_up_after_is_refused_by_apply(tmp_path):
    """The attack (a tenth tester): ann's signed commitment names a made-up ``after:`` instead
    of the header; apply took it, and the record then failed verify for good ("signed for
    another game", which points at the referee) while apply went on writing to it. apply
    refuses it now (exit 1, nothing written); the game goes on and verifies."""
    keys = {p: ssh_key(keydir(tmp_path), p) for p in PLAYERS}
    game = new_game(tmp_path / "ref", keys)
    before = game.read_bytes()
    made_up = tmp_path / "ann.yaml"
    made_up.write_text(f"game: tr\nplayer: ann\nafter: {'ab' * 32}\n"
                       f"commitment: {commitment_of('tr', 'ann', 'my words')}\n")
    Path(f"{made_up}.sig").write_bytes(ssh_sign(keys["ann"], made_up.read_bytes()))
    refused = apply(game, made_up)
    assert refused.code == 1 and "names this game's header" in refused.err, refused.err
    assert game.read_bytes() == before
    commit_all(game, tmp_path, keys)
    assert run_inproc("verify", game).code == 0


@pytest.mark.parametrize("record_format", ["rebis-pbm/2", "rebis-pbm/4"])
def test_attack_a_one_round_join_naming_after_is_refused_by_apply(tmp_path, record_format):
    """The same in a one-round fair deal (an unsigned join, so anyone who can send one in
    ann's name): a join naming ``after:`` bricked the record (verify read it as a commitment
    of two rounds). apply refuses it; an honest join then deals and verifies."""
    folder = tmp_path / "ref"
    folder.mkdir()
    game = folder / "game.yaml"
    made = run_inproc("new", game, "--seed", "one round after test", "--insecure-seed",
                      "--game-id", "tr", "--player", "ann", "--player", "ben",
                      "--record-format", record_format)
    assert made.code == 0, made.err
    before = game.read_bytes()
    join = tmp_path / "ann.yaml"
    join.write_text(f"game: tr\nplayer: ann\nafter: {'cd' * 32}\njoin: my own words\n")
    refused = apply(game, join)
    assert refused.code == 1 and "names this game's header" in refused.err, refused.err
    assert game.read_bytes() == before
    join.write_text("game: tr\nplayer: ann\njoin: my own words\n")
    assert apply(game, join).code == 0
    assert run_inproc("verify", game).code == 0
