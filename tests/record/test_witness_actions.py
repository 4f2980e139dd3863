"""rebis-pbm/6: the referee's signed witness counts its logged actions (issue 27, finding 03).

Once a game's seed is public (a finished game, or one ended), a spectator holding only the
public record can recompute ``record_hmac``. Each act's signature covers only the acts before
it, so the last acts (an extension, the ``end_game`` that blames a player) could be cut off with
every remaining signature checking. A rebis-pbm/6 witness line names the number of acts
(``, actions K``), so the record's own ``witness_signature`` no longer checks: each test
performs the attack with the real ssh-keygen and sees verify fail (exit 3); the same on a
rebis-pbm/5 record is the limit docs/audit.md admits."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from clitools import run_inproc
from rebis_pbm import app as referee
from rebis_pbm.record import dump_record
from rebis_pbm.record.acts import record_witness
from sshkeys import needs_ssh, ssh_key

pytestmark = needs_ssh
STRIPPED = ("the record's witness_signature is not the referee's signature of its last entry "
            "and its number of logged actions: entries or acts were removed or added since the "
            "referee signed")
REVEALED_WITHOUT_ACT = "the record reveals its seed before its game finished by play"


def _run(*args: object) -> None:
    done = run_inproc(*args)
    assert done.code == 0, done.err + done.out


def _finished(folder: Path, record_format: str) -> tuple[Path, Path]:
    """A referee-deal game of ann and bo with a referee key and a deadline: the referee extends
    the deadline after move 1, then the game is played to its end (the seed revealed)."""
    key = ssh_key(folder, "referee")
    game = folder / "g.yaml"
    _run("new", game, "--player", "ann", "--player", "bo", "--seed", "witness actions",
         "--insecure-seed", "--referee-deal", "--deadline", "72h", "--rule", "golden_dust=1",
         "--rule", "gold=0", "--rule", "red=1", "--rule", "shelf_limit=3", "--rule",
         "hand_size=2", "--now", "2026-01-01T00:00:00Z", "--record-format", record_format,
         "--referee-key", key)
    hour = 1
    while not referee.open_game(game)[1].state.finished:
        record, replay, _ = referee.open_game(game)
        _, move = referee.bot_move(game, replay.state.player_to_move, "greedy", seed="x")
        path = folder / f"turn-{move.turn:03d}-{move.player}.yaml"
        path.write_text(json.dumps({"game": record.game, "after": record.last_digest(),
                                    **move.as_dict()}))
        _run("apply", game, path, "--now", f"2026-01-01T{hour:02d}:00:00Z", "--referee-key", key)
        if hour == 1:  # views saved before and after the extension (verify --witness, below)
            shutil.copy(folder / "g.views" / "ann.txt", folder / "ann-move-1.txt")
            _run("extend", game, "--by", "24h", "--now", "2026-01-01T01:30:00Z",
                 "--referee-key", key)
            shutil.copy(folder / "g.views" / "bo.yaml", folder / "bo-extended.yaml")
        hour += 1
    record = referee.read_record(game)
    assert record.format == record_format and record.seed is not None
    assert [a["action"] for a in record.actions] == ["extend_deadline"]
    return game, key


def _ended_before_the_deal(folder: Path, record_format: str) -> tuple[Path, bytes]:
    """A two-round fair deal of ann and bo (keys, a referee key, a deadline): ann commits, bo
    never does, tick ends the game before the deal (``end_game``, the seed revealed). Returns
    the record and its bytes before the tick (what a public repository's history keeps)."""
    keys = {p: ssh_key(folder, p) for p in ("ann", "bo")}
    key = ssh_key(folder, "referee")
    game = folder / "h.yaml"
    _run("new", game, "--player", "ann", "--player", "bo", "--key", f"ann={keys['ann']}.pub",
         "--key", f"bo={keys['bo']}.pub", "--deadline", "72h", "--game-id", "t1",
         "--now", "2026-01-01T00:00:00Z", "--record-format", record_format,
         "--referee-key", key)
    out = folder / "mv"
    out.mkdir()
    _run("play", folder / "h.views" / "ann.yaml", "--key", keys["ann"], "--yes", "--quiet",
         "--out", f"{out}/")
    _run("apply", game, out / "turn-000-ann.yaml", "--now", "2026-01-01T01:00:00Z",
         "--referee-key", key)
    before = game.read_bytes()
    _run("tick", game, "--now", "2026-01-10T00:00:00Z", "--referee-key", key)
    record = referee.read_record(game)
    assert record.format == record_format and record.seed is not None
    assert [a["action"] for a in record.actions] == ["end_game"]
    return game, before


def _spectator_strips(game: Path, folder: Path, witness_from: bytes | None = None) -> Path:
    """The public record alone (no secret file, no key), its last logged action cut off and
    record_hmac recomputed from the seed it reveals; ``witness_from``: a record's bytes whose
    witness_signature is put back (an older version of the record, public in its history)."""
    folder.mkdir()
    copy = folder / game.name
    shutil.copy(game, copy)
    record, replay, seed = referee.open_game(copy)
    assert seed is not None and record.seed == seed  # the record's own, revealed
    record = replace(record, actions=record.actions[:-1])
    if witness_from is not None:
        older = yaml.safe_load(witness_from)["witness_signature"]
        record = replace(record, witness_signature=older)
    copy.write_text(dump_record(record, replay.state, seed))
    return copy


def _verify(game: Path, *extra: object) -> tuple[int, str]:
    out = run_inproc("verify", game, *extra)
    return out.code, out.out + out.err


def test_an_honest_v6_game_with_acts_verifies_and_its_witness_counts_them(tmp_path):
    game, _ = _finished(tmp_path, "rebis-pbm/6")
    record = referee.read_record(game)
    assert record_witness(record).endswith(f", header_sha256 {record.header_sha256}, actions 1")
    assert _verify(game)[0] == 0
    view = yaml.safe_load((tmp_path / "g.views" / "ann.yaml").read_text())
    assert view["witness"]["actions"] == 1 and view["witness_signature"]
    text = (tmp_path / "g.views" / "ann.txt").read_text()
    assert f"{record_witness(record)}\n-----BEGIN SSH SIGNATURE-----" in text
    for saved in ("ann.yaml", "ann.txt"):
        code, said = _verify(game, "--witness", tmp_path / "g.views" / saved)
        assert code == 0, said
    # witnesses saved in the game hold once later moves and acts are recorded
    assert ", actions 0\n" in (tmp_path / "ann-move-1.txt").read_text()
    assert yaml.safe_load((tmp_path / "bo-extended.yaml").read_text())["witness"] == {
        "game": record.game, "move": 1, "chain_sha256": record.links[0].chain_sha256,
        "header_sha256": record.header_sha256, "actions": 1}
    code, said = _verify(game, "--witness", tmp_path / "ann-move-1.txt", "--witness",
                         tmp_path / "bo-extended.yaml")
    assert code == 0 and "the record holds every witness" in said, said
    # the count is signed: a witness claiming more acts than the referee signed proves nothing
    edited = tmp_path / "bo-edited.yaml"
    edited.write_text((tmp_path / "bo-extended.yaml").read_text().replace(
        "  actions: 1\n", "  actions: 2\n"))
    code, said = _verify(game, "--witness", edited)
    assert code == 2 and "not signed by this game's referee" in said, said


def test_attack_an_extension_stripped_from_a_finished_v6_game_fails_verify(tmp_path):
    """The attack (finding 03, A): the extension logged after move 1 cut off the finished
    game's public record, record_hmac recomputed from its revealed seed. Exit 3, signature."""
    (tmp_path / "referee").mkdir()
    game, _ = _finished(tmp_path / "referee", "rebis-pbm/6")
    stripped = _spectator_strips(game, tmp_path / "spectator")
    out = run_inproc("verify", stripped, "--format", "json")
    problem = json.loads(out.out)["problem"]
    assert out.code == 3 and problem["code"] == "signature", out.out
    assert STRIPPED in problem["message"] and "actions 0" in problem["expected"], problem


def test_attack_end_game_stripped_from_a_v6_game_ended_before_the_deal_fails_verify(tmp_path):
    """The attack (finding 03, B): the end_game act that blames bo cut off; exit 3. With the
    witness_signature of the record before the tick put back (public in a repository's
    history), the record is that earlier record plus the revealed seed: a witness ann saved
    after the end counts 1 act, and verify --witness finds it cut off."""
    (tmp_path / "referee").mkdir()
    game, before = _ended_before_the_deal(tmp_path / "referee", "rebis-pbm/6")
    stripped = _spectator_strips(game, tmp_path / "spectator")
    code, said = _verify(stripped)
    # two checks refuse it: the count the referee signed, and the seed revealed with no act
    # that revealed it (referee_checks.check_end_acts, every format with a referee key)
    assert code == 3 and (STRIPPED in " ".join(said.split()) or REVEALED_WITHOUT_ACT in said), said
    saved = tmp_path / "referee" / "h.views" / "ann.yaml"
    assert yaml.safe_load(saved.read_text())["witness"]["actions"] == 1
    assert _verify(game, "--witness", saved)[0] == 0
    restored = _spectator_strips(game, tmp_path / "spectator2", witness_from=before)
    code, said = _verify(restored)
    assert code == 3 and REVEALED_WITHOUT_ACT in said, said
    # the witness ann saved after the end counts the act: cut off since
    from rebis_pbm.record.witness import check_witness, read_witnesses
    [witness] = read_witnesses(str(saved))
    problem = check_witness(referee.read_record(restored), witness)
    assert problem is not None and "with 1 logged actions at move 0, but the record holds " \
        "only 0" in " ".join(problem.split()), problem


@pytest.mark.parametrize("ended", [False, True], ids=["extension", "end_game"])
def test_the_same_strip_of_a_v5_record_is_the_admitted_limit_but_for_the_end(tmp_path, ended):
    """rebis-pbm/5 and older: the signed witness does not count the acts, so a stripped
    extension of the public record verifies (docs/audit.md admits it; a rebis-pbm/6 game
    defends it); the end_game act of a game ended before the deal cannot go, in any format
    with a referee key: a seed revealed before the game finished by play needs its act."""
    (tmp_path / "referee").mkdir()
    game = (_ended_before_the_deal(tmp_path / "referee", "rebis-pbm/5")[0] if ended
            else _finished(tmp_path / "referee", "rebis-pbm/5")[0])
    assert ", actions" not in record_witness(referee.read_record(game))
    stripped = _spectator_strips(game, tmp_path / "spectator")
    assert referee.read_record(stripped).actions == ()
    code, said = _verify(stripped)
    if ended:
        assert code == 3 and REVEALED_WITHOUT_ACT in said, said
    else:
        assert code == 0 and said.startswith("Verified"), said


def test_attack_an_act_put_into_the_history_a_witness_saw_fails_verify_witness(tmp_path):
    """The fourteenth tester: a /6 witness of move N counting K acts held against any record
    with at least K acts logged by move N, so the referee could place a new act (re-chained and
    signed with its key) before move N, into the past the witness saw. Every act logged before
    move N existed when the witness was written: more than K of them is a rewrite (exit 3)."""
    from test_referee_key import _forge_actions, play_signed, signed_game
    game, key, keys = signed_game(tmp_path)
    play_signed(game, keys, tmp_path, key, "2025-01-01T00:10:00Z")
    play_signed(game, keys, tmp_path, key, "2025-01-01T00:20:00Z")
    saved = tmp_path / "ann-move-2.txt"
    shutil.copy(tmp_path / "g.views" / "ann.txt", saved)
    assert ", move 2, " in saved.read_text() and ", actions 0\n" in saved.read_text()
    assert _verify(game, "--witness", saved)[0] == 0
    # an extension logged now, after move 2, is what the witness did not see yet: it holds
    done = run_inproc("extend", game, "--by", "1h", "--now", "2025-01-01T00:25:00Z",
                      "--referee-key", key)
    assert done.code == 0, done.err
    assert _verify(game, "--witness", saved)[0] == 0
    # the same act placed after move 1 instead, every act chained and signed again
    _forge_actions(game, key, lambda actions: [{**a, "after": 1} for a in actions])
    code, said = _verify(game)
    assert code == 0, said  # nothing in the record alone contradicts it
    code, said = _verify(game, "--witness", saved)
    assert code == 3, said
    assert "holds 1 logged before that move: acts were put into the history it saw since" in \
        " ".join(said.split())


def test_attack_an_act_put_into_the_join_phase_a_witness_saw_fails_verify_witness(
        tmp_path, monkeypatch):
    """The fifteenth tester: every join-phase act is logged "after move 0", so a witness of move
    0 taken once the deal was done pinned none of them. The referee keeps its copy of the record
    after the first commitment, logs an extension there, applies the same signed entries again
    and publishes that record. An act logged after fewer join entries than the witness saw
    existed when it was written: exit 3."""
    from test_two_round_deal import PLAYERS, apply, keydir, new_game, play_join
    keys = {p: ssh_key(keydir(tmp_path), p) for p in PLAYERS}
    key = ssh_key(tmp_path, "referee")
    monkeypatch.setenv("REBIS_PBM_REFEREE_KEY", str(key))
    game = new_game(tmp_path / "ref", keys, "tr", "--referee-key", str(key), "--deadline",
                    "72h", "--now", "2026-01-01T00:00:00Z")
    sent = []  # each signed entry as its player sent it, in order
    for round_ in (1, 2):
        for p in PLAYERS:
            move = play_join(game, p, tmp_path / p, keys[p])
            kept = tmp_path / "sent" / f"{round_}-{p}.yaml"
            kept.parent.mkdir(exist_ok=True)
            shutil.copy(move, kept)
            shutil.copy(f"{move}.sig", f"{kept}.sig")
            sent.append(kept)
            done = apply(game, kept, "--now", f"2026-01-01T0{len(sent)}:00:00Z")
            assert done.code == 0, done.err
            if len(sent) == 1:  # the referee keeps its copy after the first commitment
                shutil.copytree(game.parent, tmp_path / "fork")
    saved = tmp_path / "ann-dealt.txt"
    shutil.copy(game.with_name("game.views") / "ann.txt", saved)
    assert ", move 0, " in saved.read_text() and ", actions 0\n" in saved.read_text()
    assert _verify(game, "--witness", saved)[0] == 0
    fork = tmp_path / "fork" / "game.yaml"
    done = run_inproc("extend", fork, "--by", "1h", "--now", "2026-01-01T01:30:00Z")
    assert done.code == 0, done.err
    for number, entry in enumerate(sent[1:], 2):
        done = apply(fork, entry, "--now", f"2026-01-01T0{number}:00:00Z")
        assert done.code == 0, done.err
    assert len(referee.read_record(fork).actions) == 1
    code, said = _verify(fork)
    assert code == 0, said  # nothing in the record alone contradicts it
    code, said = _verify(fork, "--witness", saved)
    assert code == 3, said
    assert "acts were put into the history it saw since" in " ".join(said.split())
