"""A record relabelled an older format (issue 27, an eighth tester): once the seed is public, a
spectator turns a signed rebis-pbm/5 or /6 fair-deal game into a rebis-pbm/2 record (no
referee key, no record_hmac, unsigned acts, the commitments and the joins' after: dropped),
recomputes every digest and keeps the players' real signed files, to change the rules or strip
the referee's acts. rebis-pbm/6 commits to its seed in its own domain (the seed then says the
record was relabelled); a rebis-pbm/5 record, which shares rebis-pbm/2's domain, is told by its
players' signed files: a move's after: and a join's after: name a history the relabelled
record does not hold."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from test_referee_key import play_signed
from test_two_round_deal import PLAYERS, apply, keydir, play_join

from clitools import run_inproc
from rebis_pbm.record.digests import chain_digest
from rebis_pbm.record.model import Record
from sshkeys import needs_ssh, ssh_key

pytestmark = needs_ssh


def _ended_signed_game(tmp: Path, record_format: str, fair: bool = True) -> Path:
    """A game of ann and ben in ``record_format``, keys registered at new and a referee key;
    a fair deal's two rounds signed (or a referee deal), two signed moves, an extension, then
    ended by the referee (the seed revealed): it verifies."""
    keys = {p: ssh_key(keydir(tmp), p) for p in PLAYERS}
    referee_key = ssh_key(keydir(tmp), "referee")
    (tmp / "ref").mkdir()
    game = tmp / "ref" / "game.yaml"
    made = run_inproc("new", game, "--seed", "relabelled test", "--insecure-seed", "--game-id",
                      "tr", *(a for p in PLAYERS for a in ("--player", p, "--key",
                                                           f"{p}={keys[p]}.pub")),
                      "--deadline", "1d", "--now", "2025-01-01T00:00:00Z", "--referee-key",
                      str(referee_key), "--record-format", record_format,
                      *(() if fair else ("--referee-deal",)))
    assert made.code == 0, made.err
    assert yaml.safe_load(game.read_text())["format"] == record_format
    for _round in (1, 2) if fair else ():
        for p in PLAYERS:
            done = apply(game, play_join(game, p, tmp / p, keys[p]), "--now",
                         "2025-01-01T00:05:00Z", "--referee-key", referee_key)
            assert done.code == 0, done.err
    play_signed(game, keys, tmp, referee_key, "2025-01-01T00:10:00Z")
    play_signed(game, keys, tmp, referee_key, "2025-01-01T00:20:00Z")
    assert run_inproc("extend", game, "--by", "1h", "--now", "2025-01-01T00:30:00Z",
                      "--referee-key", referee_key).code == 0
    ended = run_inproc("end-game", game, "--yes", "--reason", "ben stopped answering", "--now",
                       "2025-01-03T00:00:00Z", "--referee-key", referee_key)
    assert ended.code == 0, ended.err
    assert run_inproc("verify", game).code == 0
    return game


def _relabelled(game: Path, out: Path) -> Path:
    """The spectator's forgery: ``game``'s public record as a rebis-pbm/2 record, its acts
    stripped, every digest recomputed (the header's, the joins' and the moves' chain)."""
    doc = yaml.safe_load(game.read_text())
    doc["format"] = "rebis-pbm/2"
    for field in ("referee_key", "witness_signature", "record_hmac", "actions", "grace",
                  "absence", "header_sha256"):
        doc.pop(field, None)
    doc["joins"] = [{k: v for k, v in j.items() if k != "after"} for j in doc.get("joins", [])
                    if "commitment" not in j]
    for move in doc["moves"]:
        move.pop("referee_signature", None)
    if not doc["joins"]:
        del doc["joins"]  # a referee deal
    keys = list(doc)
    at = keys.index("joins" if "joins" in doc else "moves")
    doc = {**{k: doc[k] for k in keys[:at]}, "header_sha256": "0" * 64,
           **{k: doc[k] for k in keys[at:]}}
    header = Record.from_dict(doc).computed_header_sha256()
    doc["header_sha256"] = prev = header
    for entry in (*doc.get("joins", []), *doc["moves"]):
        body = {k: v for k, v in entry.items() if k != "chain_sha256"}
        entry["chain_sha256"] = prev = chain_digest(prev, body)
    out.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
    return out


@pytest.mark.parametrize(("record_format", "fair", "said"), [
    # rebis-pbm/6 commits in its own domain: the seed does not commit to a rebis-pbm/2 record
    ("rebis-pbm/6", True, "the seed revealed in the record does not match the commitment"),
    # rebis-pbm/5 shares rebis-pbm/2's: a signed join names the last commitment's digest ...
    ("rebis-pbm/5", True, "the signed file of ann's join does not hold the join recorded"),
    # ... and a signed move the history it answers
    ("rebis-pbm/5", False, "answers another history than this record's"),
])
def test_attack_a_record_relabelled_rebis_pbm_2_fails_verify(tmp_path, record_format, fair,
                                                             said):
    game = _ended_signed_game(tmp_path, record_format, fair)
    forged = _relabelled(game, tmp_path / "forged.yaml")
    assert "actions" not in yaml.safe_load(forged.read_text())
    out = run_inproc("verify", forged)
    text = " ".join((out.out + out.err).split())
    assert out.code == 3 and said in text, text
